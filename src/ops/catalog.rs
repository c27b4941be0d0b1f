//! Every kernel configuration the library can choose, rendered on the CPU: the check
//! that no template fails to render, that naga validates every one, that the
//! `#[repr(C)]` parameter structs match the WGSL structs they fill, and (with
//! `GPUPRIM_RENDER_ALL=DIR`) the files `.ci/dawn-check.mjs` gives to Dawn, the WebGPU of
//! Chrome.
//!
//! Each family adds its configurations in a `catalog` function of its own: every element
//! type, variant (with and without subgroups), layout and tile shape its policy can pick
//! on lavapipe, GL, a GPU and WebGPU's default limits, not only those the test suite's
//! adapter reaches.

use std::collections::HashSet;

use crate::runtime::cache::KernelSource;
use crate::runtime::cache::template::{naga_dialect, spec_dialect};

/// One rendered kernel: a name for its file and its WGSL (the spec's dialect).
pub(crate) struct Rendered {
    pub(crate) name: String,
    pub(crate) wgsl: String,
    /// Chosen only past WebGPU's limits or with a wgpu-only feature
    /// ([`Catalog::add_native`]).
    pub(crate) native: bool,
}

/// A `#[repr(C)]` struct and the WGSL struct it fills.
pub(crate) struct Layout {
    /// The Rust type, for messages.
    pub(crate) rust: &'static str,
    /// The WGSL struct's name in `wgsl`.
    pub(crate) wgsl_struct: &'static str,
    /// A kernel that declares it.
    pub(crate) wgsl: String,
    /// `size_of` the Rust type.
    pub(crate) size: usize,
    /// `(field, offset_of)` of every Rust field, in order; the WGSL members must have
    /// the same names and offsets (padding, named `_...`, aside).
    pub(crate) fields: Vec<(&'static str, usize)>,
}

/// What the families add.
#[derive(Default)]
pub(crate) struct Catalog {
    pub(crate) kernels: Vec<Rendered>,
    pub(crate) layouts: Vec<Layout>,
    /// Render failures: (configuration, message).
    pub(crate) failures: Vec<(String, String)>,
    seen: HashSet<String>,
}

impl Catalog {
    /// Renders `config` (once per distinct WGSL): a configuration that must pass Dawn at
    /// WebGPU's default limits.
    pub(crate) fn add<K: KernelSource>(&mut self, config: &K) {
        self.add_with(config, false);
    }

    /// Renders `config`, a configuration chosen only on adapters past WebGPU's default
    /// limits (more workgroup memory or invocations) or with a feature WebGPU lacks
    /// (`SUBGROUP_BARRIER`, f64): Dawn checks it, and counts a limit or a missing
    /// feature apart from failures.
    pub(crate) fn add_native<K: KernelSource>(&mut self, config: &K) {
        self.add_with(config, true);
    }

    /// [`Catalog::add`] for a configuration `device` chooses if it is a WebGPU device,
    /// else [`Catalog::add_native`].
    pub(crate) fn add_for<K: KernelSource>(&mut self, device: &Device, config: &K) {
        self.add_with(config, !device.webgpu);
    }

    /// [`Catalog::add_native`] where `native`, else [`Catalog::add`].
    pub(crate) fn add_with<K: KernelSource>(&mut self, config: &K, native: bool) {
        match config.wgsl() {
            Ok(wgsl) => {
                let wgsl = spec_dialect(wgsl);
                if self.seen.insert(wgsl.clone()) {
                    let element = config.element();
                    let name = if element.is_empty() {
                        config.name().to_string()
                    } else {
                        format!("{}-{element}", config.name())
                    };
                    self.kernels.push(Rendered { name, wgsl, native });
                }
            }
            Err(e) => self.failures.push((format!("{config:?}"), e.to_string())),
        }
    }

    /// Adds a layout to check; `wgsl` is a kernel that declares `wgsl_struct`.
    pub(crate) fn layout(
        &mut self,
        rust: &'static str,
        wgsl_struct: &'static str,
        wgsl: String,
        size: usize,
        fields: &[(&'static str, usize)],
    ) {
        self.layouts.push(Layout {
            rust,
            wgsl_struct,
            wgsl,
            size,
            fields: fields.to_vec(),
        });
    }
}

/// `Catalog::layout` for a `#[repr(C)]` struct type and its fields:
/// `layout!(catalog, Params, "Params", wgsl, [n, units, ...])`.
macro_rules! layout {
    ($catalog:expr, $ty:ty, $wgsl_struct:expr, $wgsl:expr, [$($field:ident),* $(,)?]) => {
        $catalog.layout(
            stringify!($ty),
            $wgsl_struct,
            $wgsl,
            std::mem::size_of::<$ty>(),
            &[$((stringify!($field), std::mem::offset_of!($ty, $field))),*],
        )
    };
}
pub(crate) use layout;

/// A device a family's policy is asked about, as a context on it would describe it.
pub(crate) struct Device {
    pub(crate) info: crate::runtime::context::Info,
    /// Held to WebGPU's default limits and features: what it chooses goes through
    /// [`Catalog::add`], what the others choose through [`Catalog::add_native`].
    pub(crate) webgpu: bool,
}

/// The devices whose choices a family's catalog adds, WebGPU's first (so a configuration
/// that a WebGPU device also chooses counts as one): WebGPU's default limits with and
/// without subgroups; lavapipe (subgroups of 4, 8 and 16); Mesa's GL adapter (no
/// subgroups); a large GPU (subgroups of 32, 48 KiB of workgroup memory, 2 GiB bindings).
pub(crate) fn devices() -> Vec<Device> {
    use crate::runtime::context::{Info, WANTED_FEATURES, WEBGPU_FEATURES};
    use wgpu::{DeviceType, Features, Limits};
    let info = |device_type, limits: Limits, features: Features, subgroup: u32| Info {
        name: String::new(),
        backend: wgpu::Backend::Noop,
        device_type,
        vendor: 0,
        driver: String::new(),
        subgroup_min_size: subgroup,
        subgroup_max_size: subgroup,
        max_binding_bytes: limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size),
        max_workgroups_per_dimension: limits.max_compute_workgroups_per_dimension,
        limits,
        features,
    };
    let lavapipe = Limits {
        max_compute_workgroup_storage_size: 32768,
        max_compute_invocations_per_workgroup: 1024,
        max_compute_workgroup_size_x: 1024,
        max_buffer_size: 2147483647,
        ..Limits::default()
    };
    let gpu = Limits {
        max_compute_workgroup_storage_size: 49152,
        max_compute_invocations_per_workgroup: 1024,
        max_compute_workgroup_size_x: 1024,
        max_storage_buffer_binding_size: 2147483644,
        max_buffer_size: 4292870144,
        ..Limits::default()
    };
    let no_subgroups = WANTED_FEATURES.difference(Features::SUBGROUP | Features::SUBGROUP_BARRIER);
    let mut out = Vec::new();
    for device_type in [DeviceType::DiscreteGpu, DeviceType::Cpu] {
        for features in [
            WEBGPU_FEATURES,
            WEBGPU_FEATURES.difference(Features::SUBGROUP),
        ] {
            out.push(Device {
                info: info(device_type, Limits::default(), features, 32),
                webgpu: true,
            });
        }
    }
    for subgroup in [4, 8, 16] {
        out.push(Device {
            info: info(DeviceType::Cpu, lavapipe.clone(), WANTED_FEATURES, subgroup),
            webgpu: false,
        });
    }
    out.push(Device {
        info: info(DeviceType::Cpu, lavapipe, no_subgroups, 0),
        webgpu: false,
    });
    out.push(Device {
        info: info(DeviceType::DiscreteGpu, gpu, WANTED_FEATURES, 32),
        webgpu: false,
    });
    out
}

/// Every family's configurations.
pub(crate) fn every_kernel() -> Catalog {
    let mut c = Catalog::default();
    for family in super::CATALOGS {
        family(&mut c);
    }
    c
}

/// naga's verdict on a kernel (its dialect), or the message.
pub(crate) fn naga_check(wgsl: &str) -> Result<(), String> {
    let module =
        naga::front::wgsl::parse_str(&naga_dialect(wgsl)).map_err(|e| e.emit_to_string(wgsl))?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| format!("{e:?}"))?;
    Ok(())
}

/// A layout's mismatches with its WGSL struct, if any.
fn layout_check(l: &Layout) -> Result<(), String> {
    let module = naga::front::wgsl::parse_str(&naga_dialect(&l.wgsl))
        .map_err(|e| format!("does not parse: {e}"))?;
    let (members, span) = module
        .types
        .iter()
        .find_map(|(_, t)| match &t.inner {
            naga::TypeInner::Struct { members, span }
                if t.name.as_deref() == Some(l.wgsl_struct) =>
            {
                Some((members.clone(), *span))
            }
            _ => None,
        })
        .ok_or_else(|| format!("no struct {} in the WGSL", l.wgsl_struct))?;
    // Padding (`_pad`, `_pad0`, ...) is named freely on either side; the size covers it.
    let named = |n: &str| !n.starts_with('_');
    let wgsl: Vec<(String, usize)> = members
        .iter()
        .map(|m| (m.name.clone().unwrap_or_default(), m.offset as usize))
        .filter(|(n, _)| named(n))
        .collect();
    let rust: Vec<(String, usize)> = l
        .fields
        .iter()
        .filter(|(n, _)| named(n))
        .map(|(n, o)| (n.to_string(), *o))
        .collect();
    if wgsl != rust || span as usize != l.size {
        return Err(format!(
            "{} ({} bytes) {rust:?} against WGSL {} ({span} bytes) {wgsl:?}",
            l.rust, l.size, l.wgsl_struct
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Renders every configuration, validates each with naga, checks the parameter
    /// layouts, and with `GPUPRIM_RENDER_ALL=DIR` writes the kernels there for
    /// `.ci/dawn-check.mjs`: `DIR/webgpu/` those that must fit WebGPU's default limits,
    /// `DIR/native/` the others. No GPU is needed.
    #[test]
    fn every_configuration_renders_validates_and_matches_its_params() {
        let c = every_kernel();
        assert!(
            c.failures.is_empty(),
            "{} configurations failed to render:\n{}",
            c.failures.len(),
            c.failures
                .iter()
                .map(|(k, e)| format!("{k}: {e}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        let mut invalid = Vec::new();
        for k in &c.kernels {
            if let Err(e) = naga_check(&k.wgsl) {
                invalid.push(format!("{}: {e}", k.name));
            }
        }
        assert!(
            invalid.is_empty(),
            "{} of {} kernels fail naga's validation:\n{}",
            invalid.len(),
            c.kernels.len(),
            invalid.join("\n")
        );
        let bad: Vec<String> = c
            .layouts
            .iter()
            .filter_map(|l| layout_check(l).err())
            .collect();
        assert!(
            bad.is_empty(),
            "parameter layouts differ:\n{}",
            bad.join("\n")
        );
        if let Some(dir) = std::env::var_os("GPUPRIM_RENDER_ALL") {
            let dir = std::path::Path::new(&dir);
            for sub in ["webgpu", "native"] {
                let _ = std::fs::remove_dir_all(dir.join(sub));
                std::fs::create_dir_all(dir.join(sub)).unwrap();
            }
            for (n, k) in c.kernels.iter().enumerate() {
                let sub = if k.native { "native" } else { "webgpu" };
                let name: String = k
                    .name
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || c == '-' {
                            c
                        } else {
                            '_'
                        }
                    })
                    .collect();
                std::fs::write(dir.join(sub).join(format!("{name}-{n}.wgsl")), &k.wgsl).unwrap();
            }
        }
        eprintln!(
            "{} distinct kernels, {} parameter layouts",
            c.kernels.len(),
            c.layouts.len()
        );
    }

    #[test]
    fn a_layout_that_differs_is_found() {
        #[repr(C)]
        #[allow(dead_code)]
        struct P {
            n: u32,
            m: u32,
        }
        let mut c = Catalog::default();
        layout!(c, P, "P", "struct P { n: u32, k: u32 }\n".into(), [n, m]);
        layout!(c, P, "P", "struct P { n: u32, m: u32 }\n".into(), [n, m]);
        layout!(
            c,
            P,
            "P",
            "struct P { n: u32, m: vec2<u32> }\n".into(),
            [n, m]
        );
        let verdicts: Vec<bool> = c.layouts.iter().map(|l| layout_check(l).is_ok()).collect();
        assert_eq!(verdicts, [false, true, false]);
    }
}
