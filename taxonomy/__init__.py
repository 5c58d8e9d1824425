"""The shipped taxonomy packs (YAML files), installed as supervisor.taxonomy_packs."""
