"""GenoTEX analysis library: preprocessing (``tools.preprocess``) and statistics
(``tools.statistics``) used by notebooks, agents and scripts."""
