//! The xorshift64 stream unit tests draw their random cases from: no RNG
//! crate, and fixed seeds, so every run checks the same cases.

/// `next(k)`: the next draw modulo `k` of the xorshift64 stream from `seed`.
pub fn xorshift(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |k| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % k
    }
}
