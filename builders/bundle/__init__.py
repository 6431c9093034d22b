"""Writing bundles: the atomic :mod:`.writer`, the :mod:`.spec` of a bundle and the one build :mod:`.pipeline`."""
