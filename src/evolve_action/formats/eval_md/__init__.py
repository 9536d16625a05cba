"""`*.eval.md` files (adriancooney/evals): a Markdown eval with a `<prompt>` block and an
`<expectation>` block, one case judged against the expectation."""
