//! The argument checks calls share: element types and features the device must have,
//! buffers of this device, vectors of this context, equal lengths.

use std::sync::Arc;

use super::Ctx;
use crate::element::Element;
use crate::error::{Error, Result};

impl Ctx {
    /// `Err(Unsupported)` unless the device can use element type `T`.
    pub(crate) fn check_element<T: Element>(&self) -> Result<()> {
        self.require(T::FEATURES, || format!("element type {}", T::WGSL))
    }

    /// `Err(Unsupported)` unless the device has `features`.
    pub(crate) fn require(
        &self,
        features: wgpu::Features,
        what: impl FnOnce() -> String,
    ) -> Result<()> {
        if self.has_features(features) {
            Ok(())
        } else {
            Err(Error::Unsupported {
                what: what(),
                feature: format!("{:?}", features - self.inner.info.features),
                adapter: self.inner.info.name.clone(),
            })
        }
    }

    /// `Err(InvalidArgument)` unless `buffer` belongs to this context's device: a bind
    /// group of its first word is made under an error scope (wgpu refuses another
    /// device's buffer there).
    pub(crate) fn check_same_device(&self, op: &'static str, buffer: &wgpu::Buffer) -> Result<()> {
        if buffer.size() < 4 {
            return Ok(()); // nothing a vector could hold
        }
        let device = &self.inner.device;
        let layout = self.inner.probe_layout.get_or_init(|| {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("gpuprim buffer probe"),
                entries: &[wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage { read_only: true },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                }],
            })
        });
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        // A buffer of another wgpu instance (your own instance's, against gpuprim's) is an
        // id into another registry, which wgpu-core may assert on (it cannot always tell:
        // `Ctx::from_wgpu` with your own device is the way to share buffers). The
        // assertion is caught; wgpu-core's locks do not poison.
        let probe = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("gpuprim buffer probe"),
                layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer,
                        offset: 0,
                        size: wgpu::BufferSize::new(4),
                    }),
                }],
            })
        }));
        let error = crate::runtime::native::block_on(scope.pop());
        let problem = match (probe, error) {
            (Ok(_), None) => return Ok(()),
            (Err(_), _) => "it belongs to another wgpu instance".to_string(),
            (Ok(_), Some(e)) => e.to_string(),
        };
        Err(Error::InvalidArgument {
            op,
            message: format!(
                "the buffer cannot be used on this Ctx's device ({problem}); make the Ctx with \
                 Ctx::from_wgpu on the device that owns the buffer"
            ),
        })
    }

    /// Whether `other` is this context or a clone of it.
    pub(crate) fn same(&self, other: &Ctx) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// `Err(ContextMismatch)` unless every vector's context is this one.
    pub(crate) fn check_owned(&self, op: &'static str, owners: &[&Ctx]) -> Result<()> {
        if owners.iter().all(|c| self.same(c)) {
            Ok(())
        } else {
            Err(Error::ContextMismatch { op })
        }
    }
}

/// `Err(LengthMismatch)` unless the two named lengths are equal.
pub(crate) fn check_len(
    op: &'static str,
    left: (&'static str, usize),
    right: (&'static str, usize),
) -> Result<()> {
    if left.1 == right.1 {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            op,
            left_name: left.0.into(),
            left: left.1,
            right_name: right.0.into(),
            right: right.1,
        })
    }
}

/// `Err(InvalidArgument)` if two of the call's vectors share bytes of one buffer: the
/// call would read elements it has already overwritten. Views of one buffer that do not
/// overlap are fine.
pub(crate) fn check_apart(
    op: &'static str,
    views: &[(&str, crate::runtime::view::View<'_>)],
) -> Result<()> {
    use crate::runtime::view::View;
    let end = |v: &View<'_>| v.offset + v.len as u64 * v.size;
    for (i, (a_name, a)) in views.iter().enumerate() {
        for (b_name, b) in &views[i + 1..] {
            if a.buffer == b.buffer && a.offset < end(b) && b.offset < end(a) {
                return Err(Error::InvalidArgument {
                    op,
                    message: format!(
                        "`{a_name}` (bytes {}..{}) and `{b_name}` (bytes {}..{}) overlap in one \
                         buffer; give them separate bytes (views of one buffer that do not \
                         overlap are fine)",
                        a.offset,
                        end(a),
                        b.offset,
                        end(b)
                    ),
                });
            }
        }
    }
    Ok(())
}
