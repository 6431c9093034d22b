"""Alignment: candidate matches of the matcher modules (``matches``) and Meteor's search (``search``)."""
