"""Model-guided search over a sweep's legal configs: rank before measuring, measure a few, stop by a stated rule."""
