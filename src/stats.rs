//! Confidence intervals over seeds: Student t for the mean of per-run
//! figures, paired differences against a baseline, and the t quantiles.

/// Confidence level of every interval.
pub const LEVEL: f64 = 0.95;

/// Mean, standard deviation and 95% Student t interval of a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (n - 1 in the denominator); `None` below two values.
    pub sd: Option<f64>,
    /// Half-width of the interval; `None` below two values.
    pub half_width: Option<f64>,
}

impl Estimate {
    /// `None` for an empty sample.
    pub fn of(xs: &[f64]) -> Option<Estimate> {
        let n = xs.len();
        if n == 0 {
            return None;
        }
        let mean = xs.iter().sum::<f64>() / n as f64;
        let (sd, half_width) = if n >= 2 {
            let ss: f64 = xs.iter().map(|x| (x - mean) * (x - mean)).sum();
            let sd = (ss / (n - 1) as f64).sqrt();
            (Some(sd), Some(t_quantile(0.5 + LEVEL / 2.0, (n - 1) as f64) * sd / (n as f64).sqrt()))
        } else {
            (None, None)
        };
        Some(Estimate { n, mean, sd, half_width })
    }

    pub fn ci(&self) -> Option<(f64, f64)> {
        self.half_width.map(|h| (self.mean - h, self.mean + h))
    }
}

/// Half-width of the 95% interval of mean(a) - mean(b) when the two samples
/// are taken as independent (Welch: separate variances, Welch-Satterthwaite
/// degrees of freedom). What the difference would cost without common
/// random numbers.
pub fn unpaired_half_width(a: &Estimate, b: &Estimate) -> Option<f64> {
    let (sa, sb) = (a.sd?, b.sd?);
    let (va, vb) = (sa * sa / a.n as f64, sb * sb / b.n as f64);
    let v = va + vb;
    if v == 0.0 {
        return Some(0.0);
    }
    let df = v * v / (va * va / (a.n - 1) as f64 + vb * vb / (b.n - 1) as f64);
    Some(t_quantile(0.5 + LEVEL / 2.0, df) * v.sqrt())
}

/// The `p` quantile of Student's t with `df` degrees of freedom (p in (0, 1),
/// df > 0), by bisection on the distribution function.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    if p == 0.5 {
        return 0.0;
    }
    if p < 0.5 {
        return -t_quantile(1.0 - p, df);
    }
    // the upper quantile lies between 0 and the first bound past it
    let (mut lo, mut hi) = (0.0, 1.0);
    while t_cdf(hi, df) < p && hi < 1e12 {
        lo = hi;
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if t_cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-12 * hi {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// P(T <= t) for Student's t: 1 - I_x(df/2, 1/2)/2 with x = df/(df + t²).
pub fn t_cdf(t: f64, df: f64) -> f64 {
    let x = df / (df + t * t);
    let tail = 0.5 * inc_beta(0.5 * df, 0.5, x);
    if t >= 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

/// The regularized incomplete beta function I_x(a, b), by its continued
/// fraction (Numerical Recipes, `betai`/`betacf`).
fn inc_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    // the fraction converges fast on this side of the mean; use symmetry otherwise
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    // about sqrt(max(a, b)) terms are needed; the cap covers df up to ~10^9
    for m in 1..100_000 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9; relative error about 1e-15).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // reflection: Γ(x)Γ(1-x) = π / sin(πx)
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = C[0];
    for (i, c) in C.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_published_tables() {
        // two-sided 95% critical values from any table of Student's t
        for (df, want) in
            [(1.0, 12.706), (2.0, 4.303), (9.0, 2.262), (19.0, 2.093), (29.0, 2.045), (120.0, 1.980)]
        {
            let got = t_quantile(0.975, df);
            assert!((got - want).abs() < 0.0006, "df {df}: {got} vs {want}");
        }
        // the normal limit, 1.959964
        assert!((t_quantile(0.975, 1e7) - 1.959964).abs() < 1e-5);
        // one-sided 99%, df 5: 3.365; and symmetry
        assert!((t_quantile(0.99, 5.0) - 3.365).abs() < 0.0006);
        assert!((t_quantile(0.01, 5.0) + 3.365).abs() < 0.0006);
    }

    #[test]
    fn estimate_of_a_small_sample() {
        // 1, 2, 3: mean 2, sd 1, half-width 4.303 / sqrt(3) = 2.4843
        let e = Estimate::of(&[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(e.mean, 2.0);
        assert!((e.sd.unwrap() - 1.0).abs() < 1e-12);
        assert!((e.half_width.unwrap() - 2.4843).abs() < 1e-3);
        assert_eq!(Estimate::of(&[5.0]).unwrap().half_width, None);
        // two samples of sd 1, n 3: v = 2/3, df = (2/3)^2 / (2 (1/3)^2 / 2) = 4,
        // half-width 2.776 * sqrt(2/3) = 2.2667
        let w = unpaired_half_width(&e, &e).unwrap();
        assert!((w - 2.2667).abs() < 1e-3, "{w}");
    }
}
