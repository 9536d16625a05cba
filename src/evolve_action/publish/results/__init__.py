"""The results files of a job: `write` writes them (results.json, the per-case files, report.html
through `publish.html`), `record` is results.json's job record and its codec, `document` the
JSON documents of the runs, `lift` the no-skill arm's figures, `skill_creator` the files in
skill-creator's own shapes."""
