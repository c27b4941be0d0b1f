// The queries at binding 3 and the answers at binding 4, unit u of each.
{{QUERIES}}
{{OUT}}

fn gp_io_begin() {}

fn gp_query(u: u32) -> vec4<u32> {
    return gp_ordered4(gp_queries_load(u));
}

fn gp_answer(u: u32, a: vec4<u32>) {
    var answer = a;
    if gp_params.accumulate != 0u {
        answer += gp_out_load(u);
    }
    gp_out_store(u, answer);
}
