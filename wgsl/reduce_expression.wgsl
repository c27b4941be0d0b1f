{{BINDINGS}}struct GpParams {
    first: u32,
    n: u32,
    units: u32,
    _pad: u32,
{{FIELDS}}}
@group(0) @binding({{PARAMS}}) var<uniform> gp_params: GpParams;
fn gp_user_expr(i: u32, n: u32{{IN_PARAMS}}) -> T {
{{PRELUDE}}    return ({{EXPR}});
}
fn gp_unit(u: u32) -> vec4<T> {
{{LOADS}}    let base = gp_params.first + 4u * u;
    return vec4<T>({{X}}, {{Y}}, {{Z}}, {{W}});
}
