enable f16;
fn gpuprim_expression() {
    _ = (
{{EXPRESSION}}
    );
}
