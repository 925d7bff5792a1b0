"""What the claims' verdict rows become: files, figures, tables, pages and terminal lines.

``plotting`` (the figure helpers every claim draws with), ``report`` (a claim's summary and the
verdict table), ``figures`` (every claim's summary and figure, with the stamps that skip an
unchanged claim: ``python -m scripts.figures``), ``summary`` (the verdict table, the overview
figure and the generated docs: ``python -m scripts.summary``), ``overview`` (one panel per
claim), ``terminal`` (the digest in 100 columns) and ``docs_blocks`` (the generated blocks of
README.md and docs/).
"""
