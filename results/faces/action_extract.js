// The custom-tool path of benchmark-action/github-action-benchmark src/extract.ts (v1.22.0, c38cce98):
// extractCustomBenchmarkResult = BenchmarkResults.parse(JSON.parse(output)) with
// z.array(z.object({name: z.coerce.string(), value: z.coerce.number(), range/extra: z.coerce.string().optional(),
// unit: z.coerce.string()})), then `if (benches.length === 0) throw new Error('No benchmark result was found ...')`.
// zod is not installed here: its coercions are written out (String(), Number(), and zod 4's refusal of NaN/Infinity).
const fs = require('fs');
const path = process.argv[2];
const output = fs.readFileSync(path, 'utf8');
let data;
try { data = JSON.parse(output); } catch (e) { console.error(`REJECTED ${path}: JSON.parse: ${e.message}`); process.exit(1); }
if (!Array.isArray(data)) { console.error(`REJECTED ${path}: expected array`); process.exit(1); }
const benches = data.map((e, i) => {
  if (e === null || typeof e !== 'object' || Array.isArray(e)) throw new Error(`entry ${i}: expected object`);
  const value = Number(e.value);
  if (!Number.isFinite(value)) throw new Error(`entry ${i}: value ${e.value} is not a finite number`);
  const b = { name: String(e.name), value, unit: String(e.unit) };
  if (e.range !== undefined) b.range = String(e.range);
  if (e.extra !== undefined) b.extra = String(e.extra);
  return b;
});
if (benches.length === 0) { console.error(`REJECTED: No benchmark result was found in ${path}. Benchmark output was '${output}'`); process.exit(1); }
const names = new Set(benches.map(b => b.name));
console.log(`accepted ${path}: ${benches.length} entries, ${names.size} unique names, units ${[...new Set(benches.map(b => b.unit))].join(',')}; first: ${JSON.stringify(benches[0])}`);
