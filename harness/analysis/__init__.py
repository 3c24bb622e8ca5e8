"""Analysis layer: explaining results.

The pipeline timeline model, the stage report and figures.  May import core, measure and results.
"""
