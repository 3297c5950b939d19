//! Tenant names met in the first pass over the traces, looked up once per
//! row.

use std::collections::HashMap;

use crate::model::TenantId;

/// Tenant ids by name for the first pass. A short name is its own key,
/// packed into two or three words with its length, so a lookup touches one
/// table slot and no string elsewhere on the heap (10,000 names in a std
/// map made the name comparison a fifth of the pass, in cache misses; the
/// slot load is still the pass's largest cost, so names of up to 15 bytes,
/// the usual, get 24-byte slots rather than 32).
#[derive(Default)]
pub(super) struct KnownNames {
    tiny: HashMap<[u64; 2], TenantId, FastHash>,
    short: HashMap<[u64; 3], TenantId, FastHash>,
    long: HashMap<String, TenantId, FastHash>,
}

enum Key {
    Tiny([u64; 2]),
    Short([u64; 3]),
    Long,
}

impl KnownNames {
    /// `name` packed with its length (in the last byte), if it has at most 23 bytes.
    fn pack(name: &str) -> Key {
        let b = name.as_bytes();
        let mut k = [0u8; 24];
        let w = |k: &[u8; 24], i: usize| u64::from_le_bytes(k[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
        if b.len() < 16 {
            k[..b.len()].copy_from_slice(b);
            k[15] = b.len() as u8;
            Key::Tiny([w(&k, 0), w(&k, 1)])
        } else if b.len() < 24 {
            k[..b.len()].copy_from_slice(b);
            k[23] = b.len() as u8;
            Key::Short([w(&k, 0), w(&k, 1), w(&k, 2)])
        } else {
            Key::Long
        }
    }

    pub(super) fn get(&self, name: &str) -> Option<TenantId> {
        match Self::pack(name) {
            Key::Tiny(k) => self.tiny.get(&k).copied(),
            Key::Short(k) => self.short.get(&k).copied(),
            Key::Long => self.long.get(name).copied(),
        }
    }

    pub(super) fn insert(&mut self, name: &str, id: TenantId) {
        match Self::pack(name) {
            Key::Tiny(k) => self.tiny.insert(k, id),
            Key::Short(k) => self.short.insert(k, id),
            Key::Long => self.long.insert(name.to_string(), id),
        };
    }
}

/// FxHash (as in rustc): tenant names are looked up once per row, and
/// SipHash's resistance to chosen keys buys nothing for a local table.
#[derive(Default, Clone, Copy)]
struct FastHash;

impl std::hash::BuildHasher for FastHash {
    type Hasher = FxHasher;
    fn build_hasher(&self) -> FxHasher {
        FxHasher(0)
    }
}

struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn write_u64(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0xf135_7aea_2e62_a9c5);
    }
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0xf135_7aea_2e62_a9c5;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_at_the_packing_limits_stay_apart() {
        // Lengths 0..=30 cross both packing limits (16 and 24 bytes); a name
        // and the same name with trailing NULs pack to the same bytes but
        // not the same length, so all 61 names are distinct keys and each
        // must come back with its own id.
        let mut names: Vec<String> = (0..=30).map(|n| "x".repeat(n)).collect();
        names.extend((1..=30).map(|n| format!("x{}", "\0".repeat(n))));
        assert_eq!(names.len(), 61);
        let mut known = KnownNames::default();
        for (i, n) in names.iter().enumerate() {
            assert_eq!(known.get(n), None, "{n:?} before insertion");
            known.insert(n, i as TenantId);
        }
        for (i, n) in names.iter().enumerate() {
            assert_eq!(known.get(n), Some(i as TenantId), "{n:?}");
        }
    }
}
