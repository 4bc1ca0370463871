//! Durations in the words specs write them in — `90s`, `10m`, `24h`, `7d`, `1500ms` — for
//! diagnostics, messages and the catalog (what a spec could say back).

use std::time::Duration;

/// `d` in the largest unit that says it whole (days, hours, minutes, seconds), else in
/// milliseconds.
pub fn words(d: Duration) -> String {
    let ms = d.as_millis();
    match ms {
        0 => "0ms".to_owned(),
        ms if ms.is_multiple_of(86_400_000) => format!("{}d", ms / 86_400_000),
        ms if ms.is_multiple_of(3_600_000) => format!("{}h", ms / 3_600_000),
        ms if ms.is_multiple_of(60_000) => format!("{}m", ms / 60_000),
        ms if ms.is_multiple_of(1000) => format!("{}s", ms / 1000),
        ms => format!("{ms}ms"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_specs_write_them() {
        let cases = [
            (0, "0ms"),
            (250, "250ms"),
            (1500, "1500ms"),
            (30_000, "30s"),
            (90_000, "90s"),
            (120_000, "2m"),
            (3_600_000, "1h"),
            (86_400_000, "1d"),
            (90 * 86_400_000, "90d"),
        ];
        for (ms, said) in cases {
            assert_eq!(words(Duration::from_millis(ms)), said, "{ms} ms");
        }
    }
}
