@group(0) @binding({{BINDING}}) var<storage, {{MODE}}> {{NAME}}: array<vec4<{{T}}>>;
fn {{NAME}}_load(u: u32) -> vec4<{{T}}> { return {{NAME}}[u]; }
fn {{NAME}}_units() -> u32 { return arrayLength(&{{NAME}}); }
//#if WRITABLE
fn {{NAME}}_store(u: u32, v: vec4<{{T}}>) { {{NAME}}[u] = v; }
//#endif
