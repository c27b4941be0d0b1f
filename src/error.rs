//! The one error type of the crate.
//!
//! Every fallible call returns [`Result<T>`](crate::Result). Each variant is a class
//! of failure; its message names the numbers involved and what to do next.

/// Everything that can go wrong in a gpuprim call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No adapter with compute support was found.
    #[error(
        "no GPU adapter with compute shaders found ({searched}); on a machine without a GPU install \
         Mesa's software Vulkan driver (Debian/Ubuntu: `apt-get install mesa-vulkan-drivers`)"
    )]
    NoAdapter {
        /// What was searched, e.g. "backends: VULKAN | GL, software only".
        searched: String,
    },

    /// The adapter refused to create a device.
    #[error("adapter {adapter:?} could not create a device: {message}")]
    RequestDevice {
        /// Adapter name.
        adapter: String,
        /// wgpu's message.
        message: String,
    },

    /// Two inputs of one call have different lengths.
    #[error(
        "length mismatch in `{op}`: {left_name} has {left} elements but {right_name} has {right}; \
         pass vectors of equal length"
    )]
    LengthMismatch {
        /// The call, e.g. "zip".
        op: &'static str,
        /// Name of the first vector in the call.
        left_name: String,
        /// Its length.
        left: usize,
        /// Name of the second vector in the call.
        right_name: String,
        /// Its length.
        right: usize,
    },

    /// Generated WGSL (usually with a user expression in it) did not compile.
    #[error(
        "WGSL for `{op}` does not compile{}:\n{message}{}",
        compile_subject(code),
        compile_hint(code)
    )]
    Compile {
        /// The call, e.g. "map".
        op: &'static str,
        /// The user's expression (or "" for a built-in kernel).
        code: String,
        /// The WGSL compiler's message, with the offending line.
        message: String,
    },

    /// The element type or operation needs an adapter feature this device lacks.
    #[error(
        "{what} needs the adapter feature {feature}, which adapter {adapter:?} does not offer \
         (or the Ctx was built without it); use a 32-bit type (f32, i32, u32) or another adapter"
    )]
    Unsupported {
        /// What was asked for, e.g. "element type f64".
        what: String,
        /// The missing wgpu feature.
        feature: String,
        /// Adapter name.
        adapter: String,
    },

    /// A call needs more of something than this device or gpuprim allows: bytes of a
    /// buffer or of one binding, elements, or workgroups. [`Limit`] says which.
    #[error(
        "{what} needs {requested} {unit}, more than {} ({limit} {unit}); {}",
        .kind.limit_name(),
        .kind.advice(),
        unit = .kind.unit()
    )]
    TooLarge {
        /// What was too large, e.g. "upload of 600000000 f32".
        what: String,
        /// Which limit it passed.
        kind: Limit,
        /// How much was needed, in the limit's unit.
        requested: u64,
        /// The limit, in the same unit.
        limit: u64,
    },

    /// The device ran out of memory.
    #[error(
        "out of GPU memory allocating {bytes} bytes for {what}: {message}; free some GpuVecs and retry"
    )]
    OutOfMemory {
        /// What was being allocated.
        what: String,
        /// Bytes requested.
        bytes: u64,
        /// wgpu's message.
        message: String,
    },

    /// The device was lost (driver reset, GPU removed, ...). The Ctx cannot be used again.
    #[error("the GPU device was lost ({reason}); create a new Ctx")]
    DeviceLost {
        /// What the driver said.
        reason: String,
    },

    /// An argument is outside what the call accepts.
    #[error("invalid argument to `{op}`: {message}")]
    InvalidArgument {
        /// The call.
        op: &'static str,
        /// What is wrong, with the numbers.
        message: String,
    },

    /// A vector made by one `Ctx` was passed to another.
    #[error(
        "`{op}` was given a GpuVec that belongs to a different Ctx; vectors live on the device that made them, \
         copy through the host with `to_vec` and `upload`"
    )]
    ContextMismatch {
        /// The call.
        op: &'static str,
    },

    /// A wait for the GPU passed the context's limit
    /// ([`CtxBuilder::wait_timeout`](crate::CtxBuilder::wait_timeout)). The work goes on
    /// and the context stays usable: a later wait sees it finish.
    #[error(
        "`{op}` waited {waited:?} for the GPU, past this context's limit of {limit:?}: the GPU \
         is hung or the work takes longer than the limit; raise it with \
         CtxBuilder::wait_timeout or Ctx::set_wait_timeout (the context stays usable)"
    )]
    Timeout {
        /// The call that waited.
        op: &'static str,
        /// How long it waited.
        waited: std::time::Duration,
        /// The context's limit.
        limit: std::time::Duration,
    },

    /// wgpu reported an error the library did not expect, or a kernel's template and
    /// its configuration disagree. This is a gpuprim bug.
    #[error("internal error in `{op}`: {message} (this is a gpuprim bug, please report it)")]
    Internal {
        /// The call.
        op: &'static str,
        /// wgpu's message.
        message: String,
    },
}

/// `Result` with [`Error`] as the error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Whose WGSL failed, for [`Error::Compile`]'s message: the user's code, or one of
/// gpuprim's own kernels (no user code in it), which is a bug to report.
fn compile_subject(code: &str) -> String {
    if code.is_empty() {
        " (one of gpuprim's own kernels, with no user code in it: please report this \
         with the adapter's name and the message below)"
            .to_string()
    } else {
        format!(" (user code: {})", quote(code))
    }
}

/// User code as an error message quotes it: whole (as `{:?}`) up to [`QUOTED`]
/// characters; longer, its start and end with the length between, so a message stays a
/// few lines whatever the code (the whole code stays in [`Error::Compile`]'s `code`).
pub(crate) fn quote(code: &str) -> String {
    let chars = code.chars().count();
    if chars <= QUOTED {
        return format!("{code:?}");
    }
    let head: String = code.chars().take(QUOTED * 3 / 4).collect();
    let tail: String = code.chars().skip(chars - QUOTED / 4).collect();
    format!("{head:?} ... {tail:?} ({} bytes)", code.len())
}

/// The most characters of user code an error message quotes whole.
pub(crate) const QUOTED: usize = 240;

/// `message` with every line longer than [`QUOTED`] characters cut short (the WGSL
/// compiler quotes the source line it points at, and a line of user code may be long):
/// its start, then how many bytes were left out.
pub(crate) fn cut_long_lines(message: &str) -> String {
    message
        .split('\n')
        .map(|line| {
            let chars = line.chars().count();
            if chars <= QUOTED {
                line.to_string()
            } else {
                let head: String = line.chars().take(QUOTED).collect();
                format!("{head} ... ({} more bytes)", line.len() - head.len())
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The hint after [`Error::Compile`]'s message: how user code is written (none for
/// gpuprim's own kernels).
fn compile_hint(code: &str) -> &'static str {
    if code.is_empty() {
        ""
    } else {
        "\nthe expression is WGSL over the element type, e.g. \"x * 2.0 + 1.0\" for f32 or \
         \"x * 2u\" for u32"
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn long_code_is_quoted_by_its_ends() {
        assert_eq!(super::quote("x * 2.0"), "\"x * 2.0\"");
        let long = format!("x + {}y", "é".repeat(1000));
        let q = super::quote(&long);
        assert!(q.starts_with("\"x + é"), "{q}");
        assert!(q.ends_with(&format!("éy\" ({} bytes)", long.len())), "{q}");
        assert!(q.chars().count() < super::QUOTED + 40, "{q}");
        let cut = super::cut_long_lines(&format!("error\n{long}\nend"));
        let lines: Vec<_> = cut.lines().collect();
        assert_eq!(lines.len(), 3, "{cut}");
        assert_eq!((lines[0], lines[2]), ("error", "end"));
        assert!(lines[1].ends_with(" more bytes)"), "{cut}");
    }

    use super::Error;

    /// The hint on writing user code comes with user code only; a built-in kernel's
    /// failure says it is gpuprim's.
    #[test]
    fn compile_message_names_whose_code_failed() {
        let user = Error::Compile {
            op: "map",
            code: "x * 2".into(),
            message: "error: no overload".into(),
        }
        .to_string();
        assert!(user.contains("(user code: \"x * 2\")"), "{user}");
        assert!(user.contains("the expression is WGSL"), "{user}");
        let builtin = Error::Compile {
            op: "sort",
            code: String::new(),
            message: "error: no overload".into(),
        }
        .to_string();
        assert!(
            builtin.contains("one of gpuprim's own kernels"),
            "{builtin}"
        );
        assert!(!builtin.contains("the expression is WGSL"), "{builtin}");
        assert!(builtin.ends_with("error: no overload"), "{builtin}");
    }
}

/// Which limit an [`Error::TooLarge`] passed; the numbers of the error are in its unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Limit {
    /// Bytes of one buffer: the device's `max_buffer_size`.
    BufferBytes,
    /// Bytes of one storage binding, for data a call cannot split across bindings: the
    /// context's [`Info::max_binding_bytes`](crate::Info::max_binding_bytes).
    BindingBytes,
    /// Elements of one call: what its 32-bit indices or counters can address.
    Elements,
    /// Workgroups of one dispatch, over all its dimensions.
    Workgroups,
}

impl Limit {
    fn unit(self) -> &'static str {
        match self {
            Limit::BufferBytes | Limit::BindingBytes => "bytes",
            Limit::Elements => "elements",
            Limit::Workgroups => "workgroups",
        }
    }

    fn limit_name(self) -> &'static str {
        match self {
            Limit::BufferBytes => "this device's maximum buffer size",
            Limit::BindingBytes => "this context's largest storage binding",
            Limit::Elements => "one call can index",
            Limit::Workgroups => "one dispatch can launch on this device",
        }
    }

    fn advice(self) -> &'static str {
        match self {
            Limit::BufferBytes => "split the data into several vectors",
            Limit::BindingBytes => "use fewer elements per call, or a context with larger bindings",
            Limit::Elements => "split the work into several calls",
            Limit::Workgroups => "split the work into several calls",
        }
    }
}
