"""meteor-lite: a pure-Python METEOR scorer that reproduces Meteor 1.5."""

__version__ = "0.1.0"
