"""Function words, stem maps and non-breaking prefixes."""
