"""meteor-lite against the official Meteor 1.5 jar: the oracle, the full-data agreement, the fixtures' expected outputs."""
