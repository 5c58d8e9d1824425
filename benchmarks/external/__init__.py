"""Public data sets that nobody on the project wrote, run through the shipped coding pack.

``readers`` turns each set's own files (read from a local checkout given on the command line;
none of them is committed here) into cases; ``run`` decides them and reports the figures.
See ``README.md`` in this directory.
"""
