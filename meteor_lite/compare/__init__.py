"""Comparing systems on one test set: paired significance tests (:mod:`.significance`), segments paired by id
(:mod:`.pairing`) and the HTML report (:mod:`.htmlreport`).  Standard library only."""
