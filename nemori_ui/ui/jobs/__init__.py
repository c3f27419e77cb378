"""The server's jobs as pages see them: `runs` starts, follows, cancels and resumes a run as a
job (and holds the registry every session shares), `panel` lists the server's jobs on the Run
page, `tasks` starts and watches a sweep, an evaluation, a what-if re-run or the demo for a
page, and `evaluation` and `tuning` are the Evaluation and Tuning pages' jobs.

Nothing is re-exported: a page imports the module it uses, so the Live page need not load the
Tuning page's charts.
"""
