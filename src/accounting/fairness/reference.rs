//! The formulas of the fairness windows written plainly: Jain's index, the
//! Gini coefficient and weighted water-filling. [`super::ServiceWindows`] computes the same
//! figures incrementally; its tests compare against these.

/// Jain's index J = (sum x)^2 / (n * sum x^2) over `x`; 1 when all equal,
/// 1/n when one value holds everything. `None` for no values or all zero.
pub fn jain(x: &[f64]) -> Option<f64> {
    let n = x.len();
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if n == 0 || s2 == 0.0 {
        return None;
    }
    Some(s * s / (n as f64 * s2))
}

/// The Gini coefficient G = sum_i sum_j |x_i - x_j| / (2 n^2 mean) over
/// `x` (the mean absolute difference over twice the mean; Gini 1912), by
/// its definition, O(n^2): 0 when all are equal, (n - 1)/n when one value
/// holds everything. `None` for no values or all zero.
pub fn gini(x: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let s: f64 = x.iter().sum();
    if x.is_empty() || s == 0.0 {
        return None;
    }
    let diffs: f64 = x.iter().map(|a| x.iter().map(|b| (a - b).abs()).sum::<f64>()).sum();
    Some(diffs / (2.0 * n * s))
}

/// Weighted max-min fair shares (water-filling): splits `capacity` among
/// claimants in proportion to `weights`, never giving one more than its
/// `demand`; what a satisfied claimant leaves is split among the others.
/// Claimants with zero demand or weight get nothing. O(n log n).
pub fn water_fill(demand: &[f64], weights: &[f64], capacity: f64) -> Vec<f64> {
    let n = demand.len();
    let mut share = vec![0.0; n];
    let mut open: Vec<usize> = (0..n).filter(|&i| demand[i] > 0.0 && weights[i] > 0.0).collect();
    // claimants whose demand per unit weight is smallest are satisfied first
    open.sort_by(|&a, &b| (demand[a] / weights[a]).total_cmp(&(demand[b] / weights[b])).then(a.cmp(&b)));
    let mut left = capacity.max(0.0);
    let mut wsum: f64 = open.iter().map(|&i| weights[i]).sum();
    for (k, &i) in open.iter().enumerate() {
        let level = left / wsum;
        if demand[i] <= level * weights[i] {
            share[i] = demand[i];
            left -= demand[i];
            wsum -= weights[i];
        } else {
            for &j in &open[k..] {
                share[j] = level * weights[j];
            }
            break;
        }
    }
    share
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn water_fill_caps_by_demand_and_shares_the_rest_by_weight() {
        // capacity 10, demands 2, 100, 100, equal weights: 2, then 4 and 4
        assert_eq!(water_fill(&[2.0, 100.0, 100.0], &[1.0, 1.0, 1.0], 10.0), vec![2.0, 4.0, 4.0]);
        // weights 3:1 with ample demand: 7.5 and 2.5
        assert_eq!(water_fill(&[50.0, 50.0], &[3.0, 1.0], 10.0), vec![7.5, 2.5]);
        // everyone satisfied: shares equal demands
        assert_eq!(water_fill(&[1.0, 2.0], &[1.0, 1.0], 10.0), vec![1.0, 2.0]);
        // cascading: capacity 12, demands 1, 3, 100, 100, weights 1,1,1,1:
        // level 3 -> 1 satisfied (left 11, 3 open, level 11/3 = 3.67) -> 3 satisfied
        // (left 8, 2 open) -> 4 and 4
        assert_eq!(water_fill(&[1.0, 3.0, 100.0, 100.0], &[1.0; 4], 12.0), vec![1.0, 3.0, 4.0, 4.0]);
        // weighted cascade: capacity 10, weights 2,1,1, demands 1, 100, 100:
        // level 10/4 = 2.5 -> A wants 1 <= 5, satisfied; left 9 over weight 2 -> 4.5 each
        assert_eq!(water_fill(&[1.0, 100.0, 100.0], &[2.0, 1.0, 1.0], 10.0), vec![1.0, 4.5, 4.5]);
        // zero demand or weight gets nothing
        assert_eq!(water_fill(&[0.0, 5.0, 5.0], &[1.0, 0.0, 1.0], 10.0), vec![0.0, 0.0, 5.0]);
    }

    #[test]
    fn gini_extremes_and_hand_examples() {
        // all equal: every difference is 0
        assert_eq!(gini(&[1.0, 1.0, 1.0]), Some(0.0));
        assert_eq!(gini(&[0.7; 5]), Some(0.0));
        // one of n takes all: 2 (n - 1) X / (2 n X) = (n - 1)/n; 3/4 for 4
        assert_eq!(gini(&[4.0, 0.0, 0.0, 0.0]), Some(0.75));
        assert_eq!(gini(&[0.0, 2.0]), Some(0.5));
        // (1, 2, 3): ordered-pair differences 1, 2, 1 twice = 8; 8 / (2 * 3 * 6) = 2/9
        assert!((gini(&[1.0, 2.0, 3.0]).unwrap() - 2.0 / 9.0).abs() < 1e-15);
        // (0, 0, 1, 3): pairs 1, 3, 1, 3, 2 = 10, twice 20; 20 / (2 * 4 * 4) = 0.625
        assert_eq!(gini(&[0.0, 0.0, 1.0, 3.0]), Some(0.625));
        assert_eq!(gini(&[]), None);
        assert_eq!(gini(&[0.0, 0.0]), None);
    }

    #[test]
    fn jain_extremes_and_a_hand_example() {
        assert_eq!(jain(&[1.0, 1.0, 1.0]), Some(1.0));
        // one of four gets everything: 1/4
        assert_eq!(jain(&[4.0, 0.0, 0.0, 0.0]), Some(0.25));
        // (1+2+3)^2 / (3 * (1+4+9)) = 36/42
        assert!((jain(&[1.0, 2.0, 3.0]).unwrap() - 36.0 / 42.0).abs() < 1e-12);
        assert_eq!(jain(&[]), None);
        // all zero: 0 / 0, no index
        assert_eq!(jain(&[0.0, 0.0]), None);
    }
}
