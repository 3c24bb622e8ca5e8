"""Run vs run and across backends: pair two runs' items, judge each, say why.

``compare`` pairs and judges (the rules in ``compare_rules``, one object each), ``comparison``
holds what it produces, ``compare_backends`` joins backends on the case id; the verdict rule
and its words, the whole-run shifts and the plan verdicts live beside them.
"""
