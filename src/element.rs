//! Element types: the Rust types a [`GpuVec`](crate::GpuVec) can hold and their WGSL twins.

use std::fmt::Debug;

/// The numeric class of an element type. Decides which WGSL operations apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarKind {
    /// IEEE float (`f16`, `f32`, `f64`).
    Float,
    /// Two's-complement signed integer (`i32`). Arithmetic wraps.
    Sint,
    /// Unsigned integer (`u32`). Arithmetic wraps.
    Uint,
}

mod sealed {
    pub trait Sealed {}
}

/// A type that can live in a [`GpuVec`](crate::GpuVec): its bytes, the WGSL type its
/// buffer holds, and the features the device needs for it.
///
/// Every [`GpuElement`] (the scalars kernels compute with) is one. So are the 8-byte
/// `u64`, `i64` and `[u32; 2]`, which kernels see as `vec2<u32>` (two 32-bit words, so
/// they need no 64-bit shader feature), and the records `[f32; 2]`, `[i32; 2]`, `[u32;
/// 4]`, `[f32; 4]` and `[i32; 4]`: they can be uploaded, read back, copied, sorted by
/// ([`RadixKey`](crate::RadixKey): the 8-byte ones) and carried by sorts as values
/// ([`SortPayload`](crate::SortPayload)), but not computed with: `map`, `reduce` and the
/// other arithmetic calls take a `GpuElement` and reject them at compile time:
///
/// ```compile_fail
/// let ctx = gpuprim::Ctx::new()?;
/// let v = ctx.upload(&[1u64, 2])?;
/// ctx.reduce(&v)?; // u64 is an Element, not a GpuElement
/// # Ok::<(), gpuprim::Error>(())
/// ```
///
/// The trait is sealed.
pub trait Element:
    bytemuck::Pod + Debug + PartialEq + PartialOrd + Send + Sync + 'static + sealed::Sealed
{
    /// The WGSL type of one element in a buffer, e.g. `"f32"`, `"vec2<u32>"` for `u64`.
    const WGSL: &'static str;
    /// wgpu features the type needs on the device (empty for 32-bit types).
    const FEATURES: wgpu::Features;
    /// WGSL directives a shader using this type must start with (e.g. `enable f16;`).
    const ENABLE: &'static str;
}

/// A scalar kernels compute with: an [`Element`] with a WGSL scalar twin.
///
/// Implemented for `f32`, `i32`, `u32` (every adapter), `f64` (adapters with
/// `SHADER_F64`) and [`half::f16`] (adapters with `SHADER_F16`). The trait is sealed:
/// the kernels are written for exactly these types.
pub trait GpuElement: Element {
    /// Integer or float.
    const KIND: ScalarKind;
    /// The value zero.
    const ZERO: Self;
    /// The value one.
    const ONE: Self;
    /// The least value: negative infinity for floats, `MIN` for integers (identity of max).
    const LOWEST: Self;
    /// The greatest value: infinity for floats, `MAX` for integers (identity of min).
    const HIGHEST: Self;

    /// This value as a WGSL expression of type [`Element::WGSL`], exact to the bit.
    fn wgsl_literal(self) -> String;

    /// WGSL statements that return this value from a function, exact to the bit. Floats
    /// are built from their bits through a `let`, so an infinity or NaN is a value at
    /// run time: WebGPU's compilers reject a constant expression that evaluates to one
    /// (`bitcast<f32>(0xff800000u)` included), though naga accepts it.
    ///
    /// ```
    /// use gpuprim::GpuElement;
    /// assert_eq!(7u32.wgsl_return(), "return 7u;");
    /// assert_eq!(
    ///     f32::NEG_INFINITY.wgsl_return(),
    ///     "let gp_bits = 4286578688u; return bitcast<f32>(gp_bits);"
    /// );
    /// ```
    fn wgsl_return(self) -> String {
        const BITCAST: &str = "bitcast<f32>(";
        let literal = self.wgsl_literal();
        let Some(at) = literal.find(BITCAST) else {
            return format!("return {literal};");
        };
        let start = at + BITCAST.len();
        let end = start + literal[start..].find(')').unwrap_or(0);
        let bits = &literal[start..end];
        format!(
            "let gp_bits = {bits}; return {}gp_bits{};",
            &literal[..start],
            &literal[end..]
        )
    }
}

macro_rules! element {
    ($t:ty, $wgsl:literal, $kind:ident, $features:expr, $enable:literal, $zero:expr, $one:expr, $lowest:expr, $highest:expr, |$v:ident| $lit:expr) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const WGSL: &'static str = $wgsl;
            const FEATURES: wgpu::Features = $features;
            const ENABLE: &'static str = $enable;
        }
        impl GpuElement for $t {
            const KIND: ScalarKind = ScalarKind::$kind;
            const ZERO: Self = $zero;
            const ONE: Self = $one;
            const LOWEST: Self = $lowest;
            const HIGHEST: Self = $highest;
            fn wgsl_literal(self) -> String {
                let $v = self;
                $lit
            }
        }
    };
}

element!(
    f32,
    "f32",
    Float,
    wgpu::Features::empty(),
    "",
    0.0,
    1.0,
    f32::NEG_INFINITY,
    f32::INFINITY,
    |v| format!("bitcast<f32>({}u)", v.to_bits())
);
element!(
    i32,
    "i32",
    Sint,
    wgpu::Features::empty(),
    "",
    0,
    1,
    i32::MIN,
    i32::MAX,
    |v| if v == i32::MIN {
        "i32(-2147483647 - 1)".to_string()
    } else {
        format!("i32({v})")
    }
);
element!(
    u32,
    "u32",
    Uint,
    wgpu::Features::empty(),
    "",
    0,
    1,
    u32::MIN,
    u32::MAX,
    |v| format!("{v}u")
);
// naga has no bitcast to f64: finite values as shortest round-trip decimals (exact),
// infinities and NaN through f32, whose conversion keeps them.
element!(
    f64,
    "f64",
    Float,
    wgpu::Features::SHADER_F64,
    "",
    0.0,
    1.0,
    f64::NEG_INFINITY,
    f64::INFINITY,
    |v| if v.is_finite() {
        format!("({v:?}lf)")
    } else {
        format!("f64(bitcast<f32>({}u))", (v as f32).to_bits())
    }
);
element!(
    half::f16,
    "f16",
    Float,
    wgpu::Features::SHADER_F16,
    "enable f16;",
    half::f16::ZERO,
    half::f16::ONE,
    half::f16::NEG_INFINITY,
    half::f16::INFINITY,
    |v| if v.is_finite() {
        format!("({v:?}h)")
    } else {
        format!("f16(bitcast<f32>({}u))", v.to_f32().to_bits())
    }
);

// Elements of two or four 32-bit words, moved (sort keys and values), never computed
// with.
macro_rules! words {
    ($($t:ty => $wgsl:literal),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const WGSL: &'static str = $wgsl;
            const FEATURES: wgpu::Features = wgpu::Features::empty();
            const ENABLE: &'static str = "";
        }
    )*};
}
words!(
    u64 => "vec2<u32>",
    i64 => "vec2<u32>",
    [u32; 2] => "vec2<u32>",
    [f32; 2] => "vec2<f32>",
    [i32; 2] => "vec2<i32>",
    [u32; 4] => "vec4<u32>",
    [f32; 4] => "vec4<f32>",
    [i32; 4] => "vec4<i32>"
);
