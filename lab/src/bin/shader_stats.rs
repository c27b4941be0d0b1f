//! shader_stats: what the Vulkan driver makes of a WGSL kernel (registers, local memory,
//! instructions: whatever statistics it reports through
//! `VK_KHR_pipeline_executable_properties`, and with `--ir` its internal representations).
//! For issue #19's experiments: wgpu gives no view of the machine code, and the sort's
//! speed turned on the compiler's schedule (lab/perf-journal.md).
//!
//! ```text
//! GPUPRIM_DUMP_WGSL=/tmp/wgsl sort_lab 20        # gpuprim writes each kernel's WGSL
//! shader_stats [--ir] [--checked-loops] [--no-zero-init] [--unchecked] /tmp/wgsl/*.wgsl
//! ```
//!
//! Each compute entry point is translated to SPIR-V by naga with the options wgpu 30's
//! Vulkan backend uses for gpuprim's own kernels (index bounds `Restrict`, buffer bounds
//! unchecked where `robustBufferAccess2` is on, workgroup memory zeroed natively, no loop
//! bounding: `--checked-loops` turns it on, `--no-zero-init` leaves workgroup memory as it
//! is, `--unchecked` drops the bounds checks), then compiled by the driver on a device of
//! its own with statistics captured. The first discrete GPU is used, else the first device.

use std::ffi::{CStr, CString};

use ash::vk;

type Res<T> = std::result::Result<T, Box<dyn std::error::Error>>;

struct Flags {
    ir: bool,
    loop_bounding: bool,
    zero_init: bool,
    checks: bool,
}

fn main() -> Res<()> {
    let mut flags = Flags {
        ir: false,
        loop_bounding: false,
        zero_init: true,
        checks: true,
    };
    let mut files = Vec::new();
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "--ir" => flags.ir = true,
            "--checked-loops" => flags.loop_bounding = true,
            "--no-zero-init" => flags.zero_init = false,
            "--unchecked" => flags.checks = false,
            _ if a.starts_with("--") => return Err(format!("unknown flag {a}").into()),
            _ => files.push(a),
        }
    }
    if files.is_empty() {
        return Err(
            "usage: shader_stats [--ir] [--checked-loops] [--no-zero-init] \
                    [--unchecked] FILE.wgsl..."
                .into(),
        );
    }
    let vk = Vulkan::new()?;
    for file in &files {
        let source = std::fs::read_to_string(file)?;
        let module = naga::front::wgsl::parse_str(&source)
            .map_err(|e| format!("{file}: {}", e.emit_to_string(&source)))?;
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .map_err(|e| format!("{file}: {}", e.emit_to_string(&source)))?;
        for ep in &module.entry_points {
            if ep.stage != naga::ShaderStage::Compute {
                continue;
            }
            let spv = spirv(&module, &info, &ep.name, &vk, &flags)?;
            println!("== {file} :: {} ({} SPIR-V words)", ep.name, spv.len());
            unsafe { vk.report(&module, &spv, &ep.name, flags.ir)? };
        }
    }
    Ok(())
}

/// The SPIR-V wgpu-hal's Vulkan backend would make of entry point `entry`.
fn spirv(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    entry: &str,
    vk: &Vulkan,
    flags: &Flags,
) -> Res<Vec<u32>> {
    use naga::back::spv;
    use naga::proc::BoundsCheckPolicy as P;
    let checked = |p: P| if flags.checks { p } else { P::Unchecked };
    let options = spv::Options {
        lang_version: (1, 6),
        flags: spv::WriterFlags::LABEL_VARYINGS | spv::WriterFlags::FORCE_POINT_SIZE,
        capabilities: None,
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: checked(P::Restrict),
            buffer: checked(if vk.robust2 {
                P::Unchecked
            } else {
                P::Restrict
            }),
            image_load: P::Unchecked,
            binding_array: P::Unchecked,
        },
        zero_initialize_workgroup_memory: if !flags.zero_init {
            spv::ZeroInitializeWorkgroupMemoryMode::None
        } else if vk.zero_init {
            spv::ZeroInitializeWorkgroupMemoryMode::Native
        } else {
            spv::ZeroInitializeWorkgroupMemoryMode::Polyfill
        },
        force_loop_bounding: flags.loop_bounding,
        emit_int_div_checks: flags.checks,
        ..spv::Options::default()
    };
    let pipeline = spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: entry.to_string(),
    };
    Ok(spv::write_vec(module, info, &options, Some(&pipeline))?)
}

struct Vulkan {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    executables: ash::khr::pipeline_executable_properties::Device,
    /// The driver has VK_KHR_pipeline_executable_properties.
    stats: bool,
    robust2: bool,
    zero_init: bool,
}

impl Vulkan {
    fn new() -> Res<Self> {
        unsafe {
            let entry = ash::Entry::load()?;
            let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
            let instance = entry.create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )?;
            let devices = instance.enumerate_physical_devices()?;
            let props = |d: vk::PhysicalDevice| instance.get_physical_device_properties(d);
            let pd = *devices
                .iter()
                .find(|&&d| props(d).device_type == vk::PhysicalDeviceType::DISCRETE_GPU)
                .or(devices.first())
                .ok_or("no Vulkan device")?;
            let p = props(pd);
            println!(
                "device: {} (driver {:#x}, Vulkan {}.{})",
                CStr::from_ptr(p.device_name.as_ptr()).to_string_lossy(),
                p.driver_version,
                vk::api_version_major(p.api_version),
                vk::api_version_minor(p.api_version)
            );
            if p.api_version < vk::API_VERSION_1_3 {
                return Err("the device has Vulkan < 1.3 (SPIR-V 1.6 is used)".into());
            }
            let extensions: Vec<CString> = instance
                .enumerate_device_extension_properties(pd)?
                .iter()
                .map(|e| CStr::from_ptr(e.extension_name.as_ptr()).to_owned())
                .collect();
            let has = |name: &CStr| extensions.iter().any(|e| e.as_c_str() == name);
            let stats = has(ash::khr::pipeline_executable_properties::NAME);
            if !stats {
                println!("the driver lacks VK_KHR_pipeline_executable_properties: compiling only");
            }
            let robust2_ext = has(ash::ext::robustness2::NAME);

            // What the device supports of what wgpu would enable.
            let mut q13 = vk::PhysicalDeviceVulkan13Features::default();
            let mut q_r2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
            let mut q = vk::PhysicalDeviceFeatures2::default().push_next(&mut q13);
            if robust2_ext {
                q = q.push_next(&mut q_r2);
            }
            instance.get_physical_device_features2(pd, &mut q);
            let robust_access = q.features.robust_buffer_access == vk::TRUE;
            let zero_init = q13.shader_zero_initialize_workgroup_memory == vk::TRUE;
            let varying = q13.subgroup_size_control == vk::TRUE;
            let robust2 = robust2_ext && q_r2.robust_buffer_access2 == vk::TRUE && robust_access;

            let mut exec = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
                .pipeline_executable_info(stats);
            let mut f13 = vk::PhysicalDeviceVulkan13Features::default()
                .shader_zero_initialize_workgroup_memory(zero_init)
                .subgroup_size_control(varying);
            let mut f_r2 =
                vk::PhysicalDeviceRobustness2FeaturesEXT::default().robust_buffer_access2(robust2);
            let core = vk::PhysicalDeviceFeatures::default().robust_buffer_access(robust_access);
            let mut names = Vec::new();
            if stats {
                names.push(ash::khr::pipeline_executable_properties::NAME.as_ptr());
            }
            if robust2 {
                names.push(ash::ext::robustness2::NAME.as_ptr());
            }
            let family = instance
                .get_physical_device_queue_family_properties(pd)
                .iter()
                .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
                .ok_or("no compute queue")? as u32;
            let priorities = [1.0];
            let queues = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(family)
                .queue_priorities(&priorities)];
            let mut info = vk::DeviceCreateInfo::default()
                .queue_create_infos(&queues)
                .enabled_extension_names(&names)
                .enabled_features(&core)
                .push_next(&mut exec)
                .push_next(&mut f13);
            if robust2 {
                info = info.push_next(&mut f_r2);
            }
            let device = instance.create_device(pd, &info, None)?;
            println!(
                "robustBufferAccess2 {robust2}, native workgroup zeroing {zero_init}, \
                 varying subgroup size {varying}"
            );
            let executables =
                ash::khr::pipeline_executable_properties::Device::new(&instance, &device);
            Ok(Vulkan {
                _entry: entry,
                instance,
                device,
                executables,
                stats,
                robust2,
                zero_init,
            })
        }
    }

    /// Compiles `spv` (entry point `entry`) with statistics captured and prints them.
    unsafe fn report(&self, module: &naga::Module, spv: &[u32], entry: &str, ir: bool) -> Res<()> {
        let d = &self.device;
        // One descriptor set layout per group the module declares (a superset of what the
        // entry point uses is a valid layout).
        let mut groups: Vec<Vec<vk::DescriptorSetLayoutBinding>> = Vec::new();
        for (_, var) in module.global_variables.iter() {
            let Some(rb) = &var.binding else { continue };
            let ty = match var.space {
                naga::AddressSpace::Uniform => vk::DescriptorType::UNIFORM_BUFFER,
                naga::AddressSpace::Storage { .. } => vk::DescriptorType::STORAGE_BUFFER,
                other => return Err(format!("binding in {other:?}: not supported here").into()),
            };
            let g = rb.group as usize;
            if groups.len() <= g {
                groups.resize(g + 1, Vec::new());
            }
            groups[g].push(
                vk::DescriptorSetLayoutBinding::default()
                    .binding(rb.binding)
                    .descriptor_type(ty)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE),
            );
        }
        unsafe {
            let set_layouts = groups
                .iter()
                .map(|b| {
                    d.create_descriptor_set_layout(
                        &vk::DescriptorSetLayoutCreateInfo::default().bindings(b),
                        None,
                    )
                })
                .collect::<Result<Vec<_>, _>>()?;
            let layout = d.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts),
                None,
            )?;
            let shader =
                d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(spv), None)?;
            let name = CString::new(entry)?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .flags(vk::PipelineShaderStageCreateFlags::ALLOW_VARYING_SUBGROUP_SIZE)
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(shader)
                .name(&name);
            let mut create = vk::PipelineCreateFlags::empty();
            if self.stats {
                create |= vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR;
            }
            if self.stats && ir {
                create |= vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR;
            }
            let info = vk::ComputePipelineCreateInfo::default()
                .flags(create)
                .stage(stage)
                .layout(layout);
            let pipeline = d
                .create_compute_pipelines(vk::PipelineCache::null(), &[info], None)
                .map_err(|(_, e)| e)?[0];
            let x = &self.executables;
            let executables = if self.stats {
                x.get_pipeline_executable_properties(
                    &vk::PipelineInfoKHR::default().pipeline(pipeline),
                )?
            } else {
                println!("  compiled");
                Vec::new()
            };
            for (i, e) in executables.iter().enumerate() {
                println!(
                    "  executable {i}: {} ({}), subgroup size {}",
                    text(&e.name),
                    text(&e.description),
                    e.subgroup_size
                );
                let which = vk::PipelineExecutableInfoKHR::default()
                    .pipeline(pipeline)
                    .executable_index(i as u32);
                for s in x.get_pipeline_executable_statistics(&which)? {
                    let v = match s.format {
                        vk::PipelineExecutableStatisticFormatKHR::BOOL32 => s.value.b32.to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::INT64 => s.value.i64.to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::UINT64 => s.value.u64.to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => {
                            s.value.f64.to_string()
                        }
                        _ => "?".into(),
                    };
                    println!(
                        "    {:<40} {v:>10}   {}",
                        text(&s.name),
                        text(&s.description)
                    );
                }
                if ir {
                    self.print_ir(&which)?;
                }
            }
            d.destroy_pipeline(pipeline, None);
            d.destroy_shader_module(shader, None);
            d.destroy_pipeline_layout(layout, None);
            for l in set_layouts {
                d.destroy_descriptor_set_layout(l, None);
            }
        }
        Ok(())
    }

    /// The executable's internal representations (two calls: sizes, then text).
    unsafe fn print_ir(&self, which: &vk::PipelineExecutableInfoKHR) -> Res<()> {
        let f = self
            .executables
            .fp()
            .get_pipeline_executable_internal_representations_khr;
        let h = self.device.handle();
        unsafe {
            let mut count = 0u32;
            f(h, which, &mut count, std::ptr::null_mut()).result()?;
            let mut reps =
                vec![vk::PipelineExecutableInternalRepresentationKHR::default(); count as usize];
            f(h, which, &mut count, reps.as_mut_ptr()).result()?;
            let mut data: Vec<Vec<u8>> = reps.iter().map(|r| vec![0u8; r.data_size]).collect();
            for (r, buf) in reps.iter_mut().zip(data.iter_mut()) {
                r.p_data = buf.as_mut_ptr().cast();
            }
            f(h, which, &mut count, reps.as_mut_ptr()).result()?;
            for (r, buf) in reps.iter().zip(&data) {
                println!("  --- {} ({})", text(&r.name), text(&r.description));
                if r.is_text == vk::TRUE {
                    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
                    println!("{}", String::from_utf8_lossy(&buf[..end]));
                } else {
                    println!("  ({} bytes of binary)", buf.len());
                }
            }
        }
        Ok(())
    }
}

impl Drop for Vulkan {
    fn drop(&mut self) {
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

fn text(chars: &[std::ffi::c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}
