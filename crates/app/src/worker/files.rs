//! The store's tables by file id. A worker holds the files of one page, a handful and at most
//! a few hundred, so each table is a list searched in order: the same answers as a hash map,
//! without a copy of hashbrown's table code for every value type in the bundle (about 1.5 KB of
//! wasm each; `docs/performance.md`, Bundle).

/// A value per file.
pub struct ByFile<V> {
    items: Vec<(u32, V)>,
}

impl<V> Default for ByFile<V> {
    fn default() -> Self {
        ByFile { items: Vec::new() }
    }
}

impl<V> ByFile<V> {
    fn index(&self, file: u32) -> Option<usize> {
        self.items.iter().position(|(f, _)| *f == file)
    }

    pub fn get(&self, file: &u32) -> Option<&V> {
        self.items.iter().find(|(f, _)| f == file).map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, file: &u32) -> Option<&mut V> {
        self.items.iter_mut().find(|(f, _)| f == file).map(|(_, v)| v)
    }

    pub fn contains_key(&self, file: &u32) -> bool {
        self.index(*file).is_some()
    }

    /// Sets the value of `file` (replacing any) and returns it.
    pub fn put(&mut self, file: u32, v: V) -> &mut V {
        let i = match self.index(file) {
            Some(i) => {
                self.items[i].1 = v;
                i
            }
            None => {
                self.items.push((file, v));
                self.items.len() - 1
            }
        };
        &mut self.items[i].1
    }

    pub fn insert(&mut self, file: u32, v: V) {
        self.put(file, v);
    }

    /// The value of `file`, its default first if it has none.
    pub fn get_or_default(&mut self, file: u32) -> &mut V
    where
        V: Default,
    {
        match self.index(file) {
            Some(i) => &mut self.items[i].1,
            None => self.put(file, V::default()),
        }
    }

    pub fn remove(&mut self, file: &u32) -> Option<V> {
        let i = self.index(*file)?;
        Some(self.items.swap_remove(i).1)
    }
}

/// A set of files.
#[derive(Default)]
pub struct FileSet {
    files: Vec<u32>,
}

impl FileSet {
    pub fn contains(&self, file: &u32) -> bool {
        self.files.contains(file)
    }

    /// Adds `file`; false if it was there.
    pub fn insert(&mut self, file: u32) -> bool {
        let new = !self.contains(&file);
        if new {
            self.files.push(file);
        }
        new
    }

    /// Takes `file` out; false if it was not there.
    pub fn remove(&mut self, file: &u32) -> bool {
        let before = self.files.len();
        self.files.retain(|f| f != file);
        self.files.len() != before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_by_file_answers_as_a_map_would() {
        let mut m = ByFile::default();
        assert_eq!(m.get(&1), None);
        *m.get_or_default(3) += 5;
        m.insert(1, 10);
        *m.put(2, 20) += 1;
        m.insert(1, 11);
        assert_eq!((m.get(&1), m.get(&2), m.get(&3)), (Some(&11), Some(&21), Some(&5)));
        *m.get_mut(&3).unwrap() += 1;
        *m.get_or_default(3) += 1;
        assert_eq!(m.remove(&3), Some(7));
        assert_eq!(m.remove(&3), None);
        assert!(!m.contains_key(&3) && m.contains_key(&1) && m.contains_key(&2));
        assert_eq!((m.get(&1), m.get(&2)), (Some(&11), Some(&21)));
        let mut s = FileSet::default();
        assert!(s.insert(4) && !s.insert(4) && s.contains(&4));
        assert!(s.remove(&4) && !s.remove(&4) && !s.contains(&4));
    }
}
