    let r = bits({{ARG}});
    {{FROM_BITS}}
