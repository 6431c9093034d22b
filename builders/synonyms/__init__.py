"""Synonym sets: Princeton WordNet databases (wndb), WN-LMF files, and comparison with Meteor 1.5's."""
