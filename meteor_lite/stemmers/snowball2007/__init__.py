"""Meteor 1.5's Snowball algorithms (2007), generated Python: see README.md beside this file."""
