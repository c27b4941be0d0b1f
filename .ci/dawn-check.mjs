// Checks WGSL files with Dawn, the WebGPU of Chrome (npm package `webgpu`, its null
// backend: it compiles and validates without a GPU), at WebGPU's default limits.
//
//   node .ci/dawn-check.mjs [--native] DIR...
//
// Each `*.wgsl` under DIR is compiled (createShaderModule) and each of its `@compute`
// entry points made a pipeline (layout "auto") inside a validation error scope. Files
// that use f64 are skipped (WebGPU has no f64) and counted. With `--native` the kernels
// are configurations for adapters past WebGPU's limits: a pipeline over WebGPU's
// workgroup limits and wgpu's `subgroupBarrier` (no WebGPU function) are counted apart,
// every other rejection is a failure. Prints one line per failure with Tint's first
// message, then a summary; exits 1 if anything failed or nothing was checked.
import { create, globals } from 'webgpu';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

Object.assign(globalThis, globals);

const native = process.argv.includes('--native');
const dirs = process.argv.slice(2).filter((a) => a !== '--native');
if (dirs.length === 0) {
    console.error('usage: node .ci/dawn-check.mjs DIR...');
    process.exit(2);
}
const files = [];
const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
        const p = join(d, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (name.endsWith('.wgsl')) files.push(p);
    }
};
dirs.forEach(walk);

const gpu = create(['backend=null']);
const adapter = await gpu.requestAdapter();
// Optional features a WebGPU device may grant; the limits stay WebGPU's defaults.
const requiredFeatures = ['subgroups', 'shader-f16'].filter((f) => adapter.features.has(f));
const device = await adapter.requestDevice({ requiredFeatures });

let passed = 0;
let skipped = 0;
let beyond = 0;
// What a native configuration may need that WebGPU's default limits or features lack.
const beyondWebGpu = (problem) =>
    /workgroup storage .* larger than the maximum|workgroup_size\([^)]*\) that exceeds the maximum|workgroup invocations .* exceeds the maximum|unresolved call target 'subgroupBarrier'/.test(
        problem,
    );
const failures = [];
// Identical sources (the same kernel compiled by several contexts) are checked once.
const verdicts = new Map();
for (const file of files) {
    const code = readFileSync(file, 'utf8');
    const uncommented = code.replace(/\/\/.*$/gm, '');
    if (/\bf64\b/.test(uncommented)) {
        skipped++;
        continue;
    }
    if (!verdicts.has(code)) verdicts.set(code, await check(code));
    const problem = verdicts.get(code);
    if (!problem) passed++;
    else if (native && beyondWebGpu(problem)) beyond++;
    else failures.push([file, problem]);
}

async function check(code) {
    device.pushErrorScope('validation');
    const module = device.createShaderModule({ code });
    const info = await module.getCompilationInfo();
    const moduleError = await device.popErrorScope();
    const errors = info.messages.filter((m) => m.type === 'error');
    if (errors.length > 0) {
        // The first error with the notes after it (why Tint thinks a value non-uniform).
        const first = info.messages.indexOf(errors[0]);
        const notes = info.messages
            .slice(first + 1)
            .filter((m) => m.type !== 'error')
            .map((m) => `\n    note ${m.lineNum}:${m.linePos}: ${m.message}`)
            .join('');
        const m = errors[0];
        return `${m.lineNum}:${m.linePos}: ${m.message}${notes}`;
    }
    if (moduleError) return moduleError.message;
    const entries = [...code.matchAll(/@compute[^{]*?\bfn\s+([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);
    if (entries.length === 0) return 'no @compute entry point';
    for (const entryPoint of entries) {
        device.pushErrorScope('validation');
        device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint } });
        const e = await device.popErrorScope();
        if (e) return `entry point ${entryPoint}: ${e.message.split('\n').slice(0, 3).join(' ')}`;
    }
    return null;
}

for (const [file, problem] of failures) console.log(`FAIL ${file}: ${problem}`);
console.log(
    `dawn-check: ${passed} passed, ${failures.length} failed, ${skipped} skipped (f64), ` +
        (native ? `${beyond} past WebGPU's limits or features (native only), ` : '') +
        `${verdicts.size} distinct sources, features [${requiredFeatures.join(', ')}]`,
);
device.destroy();
process.exit(failures.length > 0 || passed + beyond === 0 ? 1 : 0);
