//! `GPUPRIM_DUMP_WGSL`: every kernel's WGSL is written out as it is compiled. A test
//! binary of its own, because the variable is read by every compile in the process.

mod common;

#[test]
fn compiled_kernels_are_written_to_the_dump_directory() {
    let dir = std::env::temp_dir().join(format!("gpuprim-dump-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // SAFETY: the only test of this binary sets it before any thread of its own reads
    // the environment.
    unsafe { std::env::set_var("GPUPRIM_DUMP_WGSL", &dir) };
    let ctx = common::ctx();
    let v = ctx.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let doubled = ctx.map(&v, "x * 2.0 + 0.25").unwrap();
    assert_eq!(doubled.to_vec().unwrap(), vec![2.25, 4.25, 6.25]);
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{} was not made: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    let map: Vec<_> = files
        .iter()
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("map-main-")
        })
        .collect();
    assert_eq!(map.len(), 1, "one map kernel among {files:?}");
    let wgsl = std::fs::read_to_string(map[0]).unwrap();
    assert!(
        wgsl.contains("x * 2.0 + 0.25"),
        "the user expression is in the dump:\n{wgsl}"
    );
    assert!(wgsl.contains("@compute"), "a whole module:\n{wgsl}");
    std::fs::remove_dir_all(&dir).unwrap();
}
