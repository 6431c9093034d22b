"""Text handling: reading input files (``io``) and Meteor's normaliser and tokeniser (``normalize``)."""
