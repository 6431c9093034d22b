"""The official Meteor 1.5 release: its files (:mod:`.release`, :mod:`.formats`), its stemmer (:mod:`.stems`) and the import into bundles (:mod:`.importer`)."""
