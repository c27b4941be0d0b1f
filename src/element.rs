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

/// A type that can live in a [`GpuVec`](crate::GpuVec): a plain scalar with a WGSL twin.
///
/// Implemented for `f32`, `i32`, `u32` (every adapter), `f64` (adapters with
/// `SHADER_F64`) and [`half::f16`] (adapters with `SHADER_F16`). The trait is sealed:
/// the kernels are written for exactly these types.
pub trait GpuElement:
    bytemuck::Pod + Debug + PartialEq + PartialOrd + Send + Sync + 'static + sealed::Sealed
{
    /// The WGSL scalar type name, e.g. `"f32"`.
    const WGSL: &'static str;
    /// Integer or float.
    const KIND: ScalarKind;
    /// wgpu features the type needs on the device (empty for 32-bit types).
    const FEATURES: wgpu::Features;
    /// WGSL directives a shader using this type must start with (e.g. `enable f16;`).
    const ENABLE: &'static str;
    /// The value zero.
    const ZERO: Self;
    /// The value one.
    const ONE: Self;
    /// The least value: negative infinity for floats, `MIN` for integers (identity of max).
    const LOWEST: Self;
    /// The greatest value: infinity for floats, `MAX` for integers (identity of min).
    const HIGHEST: Self;

    /// This value as a WGSL expression of type [`Self::WGSL`], exact to the bit.
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
        impl GpuElement for $t {
            const WGSL: &'static str = $wgsl;
            const KIND: ScalarKind = ScalarKind::$kind;
            const FEATURES: wgpu::Features = $features;
            const ENABLE: &'static str = $enable;
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
