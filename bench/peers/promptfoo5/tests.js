// The kit's promptfoo workload (../../../shared/peers/promptfoo/tests.js) with five llm-rubric
// statements per case instead of one, to count promptfoo's judge calls per statement.
const n = parseInt(process.env.PEERS_N || '200', 10);
const extra = ['The reply is one sentence', 'The reply is polite', 'The reply is in English',
  'The reply does not ask a question'];
const tests = [];
for (let i = 0; i < n; i++) {
  const kw = `kw${i}x`;
  tests.push({
    description: `case-${i}`,
    vars: { keyword: kw },
    assert: [
      { type: 'regex', value: `\\b${kw}\\b` },
      ...extra.map((value) => ({ type: 'llm-rubric', value })),
      { type: 'llm-rubric', value: `The reply mentions ${kw}` },
    ],
  });
}
module.exports = tests;
