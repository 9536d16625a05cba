"""`report.html`: one static page of a job's results, for people to look at.

In: the `ReportInput` the comment reads (its runs carry their transcripts). Out: one HTML
file, self-contained (inline CSS and SVG, no script, nothing fetched), beside results.json.
`view` turns the report into what the page shows (charts' geometry, failed runs, cut to
bounded sizes); `page` renders it through Jinja2 with autoescape on, so every piece of user
or model text reaches the page as text.
"""
