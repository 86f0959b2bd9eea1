"""Dashboards: one self-contained HTML report from the analysis of a tournament."""
