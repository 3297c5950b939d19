//! Tenant names met in the first pass over the traces, looked up once per
//! row.

use std::collections::HashMap;

use crate::model::TenantId;

/// Tenant ids by name for the first pass. A short name is its own key,
/// packed into three words, so a lookup touches one table slot and no
/// string elsewhere on the heap (10,000 names in a std map made the name
/// comparison a fifth of the pass, in cache misses).
#[derive(Default)]
pub(super) struct KnownNames {
    short: HashMap<[u64; 3], TenantId, FastHash>,
    long: HashMap<String, TenantId, FastHash>,
}

impl KnownNames {
    /// `name` packed with its length, if it has at most 23 bytes.
    fn pack(name: &str) -> Option<[u64; 3]> {
        let b = name.as_bytes();
        (b.len() < 24).then(|| {
            let mut k = [0u8; 24];
            k[..b.len()].copy_from_slice(b);
            k[23] = b.len() as u8;
            let w = |i: usize| u64::from_le_bytes(k[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
            [w(0), w(1), w(2)]
        })
    }

    pub(super) fn get(&self, name: &str) -> Option<TenantId> {
        match Self::pack(name) {
            Some(k) => self.short.get(&k).copied(),
            None => self.long.get(name).copied(),
        }
    }

    pub(super) fn insert(&mut self, name: &str, id: TenantId) {
        match Self::pack(name) {
            Some(k) => self.short.insert(k, id),
            None => self.long.insert(name.to_string(), id),
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
