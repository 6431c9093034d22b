"""Exporting bundles to the files the official Meteor 1.5 jar reads."""
