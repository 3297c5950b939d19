//! Keys that group outcomes by cause: many inputs reach one defect, and a
//! report should list it once. Numbers and columns are left out because they
//! differ between inputs, and between builds, of one cause.

/// The fairsim functions of a stack sample (of the thread that has
/// any), innermost first, allocator frames left out.
fn stack_frames(stack: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for l in stack.lines() {
        if l.starts_with("Thread") && !names.is_empty() {
            break;
        }
        // `#3  0x0000... in NAME () at FILE:LINE` or `#3  NAME () at ...`
        let Some(rest) = l.strip_prefix('#') else { continue };
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start();
        let rest = match rest.find(" in ") {
            Some(i) if rest.starts_with("0x") => &rest[i + 4..],
            _ => rest,
        };
        let f = rest.split([' ', '(']).next().unwrap_or("");
        if f.starts_with("fairsim::")
            && !f.starts_with("fairsim::huge_pages")
            && names.last().map(String::as_str) != Some(f)
        {
            names.push(f.to_string());
        }
    }
    names
}

/// Where a stopped process was: the innermost frame of a stage that drives
/// the work (engine, loader, trace scan, run, output, cli) and the function
/// it was calling, so that samples of one loop agree.
pub fn stack_key(stack: &str) -> Option<String> {
    let frames = stack_frames(stack);
    let drivers = [
        "fairsim::engine::",
        "fairsim::scenario::",
        "fairsim::workload::",
        "fairsim::run::",
        "fairsim::output::",
        "fairsim::cli::",
    ];
    let j = frames.iter().position(|f| drivers.iter().any(|d| f.starts_with(d)))?;
    let short = |f: &str| f.trim_start_matches("fairsim::").to_string();
    Some(match j {
        0 => short(&frames[0]),
        _ => format!("{} > {}", short(&frames[j]), short(&frames[j - 1])),
    })
}

/// Digits as `N`, at most `max` characters: messages that differ only in
/// numbers have the same cause.
pub fn normalize(s: &str, max: usize) -> String {
    let mut o = String::new();
    let mut last_n = false;
    for c in s.chars() {
        if c.is_ascii_digit() {
            if !last_n {
                o.push('N');
            }
            last_n = true;
        } else {
            o.push(c);
            last_n = false;
        }
    }
    o.chars().take(max).collect()
}

/// The innermost fairsim frame of a panic's backtrace (the children run
/// with `RUST_BACKTRACE=1`): `src/FILE:LINE (FUNCTION)`.
fn panic_frame(stderr: &str) -> Option<String> {
    let lines: Vec<&str> = stderr.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        let Some((n, f)) = l.trim_start().split_once(": ") else { continue };
        if !n.chars().all(|c| c.is_ascii_digit()) || !f.contains("fairsim::") {
            continue;
        }
        let at = lines.get(i + 1).and_then(|a| a.trim_start().strip_prefix("at ")).unwrap_or("");
        let at = at.find("src/").map(|k| &at[k..]).unwrap_or(at);
        let at = match at.rsplit_once(':') {
            Some((fl, col)) if col.chars().all(|c| c.is_ascii_digit()) => fl,
            _ => at,
        };
        return Some(if at.is_empty() { f.to_string() } else { format!("{at} ({f})") });
    }
    None
}

/// Location and message of a panic in stderr. A panic inside the standard
/// library (an overflow in `Iterator::sum`, an index out of bounds in a
/// slice method) is placed at the innermost fairsim frame that called it.
pub fn panic_key(stderr: &str) -> Option<String> {
    let i = stderr.find("panicked at ")?;
    let rest = &stderr[i + "panicked at ".len()..];
    let (loc, msg) = rest.split_once('\n').unwrap_or((rest, ""));
    let loc = loc.trim_end_matches(':');
    // file:line (the column may differ between builds of one cause)
    let loc = match loc.rsplit_once(':') {
        Some((fl, col)) if col.chars().all(|c| c.is_ascii_digit()) => fl,
        _ => loc,
    };
    let loc = if loc.starts_with("src/") {
        loc.to_string()
    } else {
        let file = loc.rsplit('/').next().unwrap_or(loc);
        match panic_frame(stderr) {
            Some(f) => format!("{f} via {file}"),
            None => loc.to_string(),
        }
    };
    Some(format!("{loc}: {}", normalize(msg.lines().next().unwrap_or("").trim(), 80)))
}
