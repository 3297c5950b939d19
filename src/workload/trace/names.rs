//! Tenant names met in the first pass over the traces, looked up once per
//! row.

use std::collections::HashMap;

use crate::model::TenantId;

/// Tenant ids by name for the first pass. A short name is its own key,
/// packed with its length, so a lookup touches one table slot and no string
/// elsewhere on the heap (10,000 names in a std map made the name
/// comparison a fifth of the pass, in cache misses). The slot load is still
/// the pass's largest single cost, so names of up to 11 bytes (the usual)
/// live in [`Packed`], 16 bytes a slot with the id inside: 10,000 names in
/// 256 KiB, which stays in this machine's 512 KiB L2 cache beside the rest
/// of the pass, where the std map's 24-byte slots took 384 KiB and missed.
#[derive(Default)]
pub(super) struct KnownNames {
    packed: Packed,
    tiny: HashMap<[u64; 2], TenantId, FastHash>,
    short: HashMap<[u64; 3], TenantId, FastHash>,
    long: HashMap<String, TenantId, FastHash>,
}

enum Key {
    Packed(u64, u32),
    Tiny([u64; 2]),
    Short([u64; 3]),
    Long,
}

impl KnownNames {
    /// `name` packed with its length, if it has at most 23 bytes.
    fn pack(name: &str) -> Key {
        let b = name.as_bytes();
        let mut k = [0u8; 24];
        let w = |k: &[u8; 24], i: usize| u64::from_le_bytes(k[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
        if b.len() <= Packed::MAX_LEN {
            k[..b.len()].copy_from_slice(b);
            // length + 1: a packed key's top byte is never 0, an empty slot's is
            k[11] = b.len() as u8 + 1;
            Key::Packed(w(&k, 0), u32::from_le_bytes(k[8..12].try_into().expect("4 bytes")))
        } else if b.len() < 16 {
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
            Key::Packed(a, b) => self.packed.get(a, b),
            Key::Tiny(k) => self.tiny.get(&k).copied(),
            Key::Short(k) => self.short.get(&k).copied(),
            Key::Long => self.long.get(name).copied(),
        }
    }

    pub(super) fn insert(&mut self, name: &str, id: TenantId) {
        match Self::pack(name) {
            Key::Packed(a, b) => self.packed.insert(a, b, id),
            Key::Tiny(k) => {
                self.tiny.insert(k, id);
            }
            Key::Short(k) => {
                self.short.insert(k, id);
            }
            Key::Long => {
                self.long.insert(name.to_string(), id);
            }
        }
    }
}

/// Open addressing with linear probing over 16-byte slots: the name's
/// first 8 bytes, then its next 3 bytes and length + 1 (32 bits) and the id
/// (32 bits). At most 3/4 full, so a probe mostly stays in one cache line.
#[derive(Default)]
struct Packed {
    slots: Vec<[u64; 2]>,
    len: usize,
}

impl Packed {
    const MAX_LEN: usize = 11;

    /// The first slot to probe: the top bits of a multiplicative hash.
    fn home(&self, a: u64, b: u32) -> usize {
        let h = (a ^ u64::from(b).wrapping_mul(0xc2b2_ae3d_27d4_eb4f)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (h >> (64 - self.slots.len().trailing_zeros())) as usize
    }

    fn get(&self, a: u64, b: u32) -> Option<TenantId> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(a, b);
        loop {
            let [sa, sb] = self.slots[i];
            if sb as u32 == b && sa == a {
                return Some((sb >> 32) as TenantId);
            }
            if sb as u32 == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Inserts a name that is not in the table.
    fn insert(&mut self, a: u64, b: u32, id: TenantId) {
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            let grown = vec![[0; 2]; (self.slots.len() * 2).max(1024)];
            let old = std::mem::replace(&mut self.slots, grown);
            for [sa, sb] in old.into_iter().filter(|s| s[1] as u32 != 0) {
                self.place(sa, sb);
            }
        }
        self.place(a, u64::from(b) | u64::from(id) << 32);
        self.len += 1;
    }

    fn place(&mut self, a: u64, slot_b: u64) {
        let mask = self.slots.len() - 1;
        let mut i = self.home(a, slot_b as u32);
        while self.slots[i][1] as u32 != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = [a, slot_b];
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
        // Lengths 0..=30 cross every packing limit (12, 16 and 24 bytes); a name
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

    #[test]
    fn the_packed_table_keeps_every_name_through_its_growth() {
        // 20,000 names from 2 to 6 bytes: the table starts at 1,024 slots
        // and doubles while more than 3/4 full, to 32,768 (20,000 / 0.75 =
        // 26,667 > 16,384), rehashing five times; every name keeps its id
        // and 20,000 other names of the same lengths are never found.
        let mut known = KnownNames::default();
        for i in 0..20_000u32 {
            known.insert(&format!("t{i}"), i);
        }
        assert_eq!(known.packed.slots.len(), 32_768);
        for i in 0..20_000u32 {
            assert_eq!(known.get(&format!("t{i}")), Some(i));
            assert_eq!(known.get(&format!("u{i}")), None);
        }
    }
}
