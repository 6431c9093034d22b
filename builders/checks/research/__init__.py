"""What settings are worth on human judgments: validity, transfer, tuning drivers, perturbations, thesaurus effects."""
