/**
 * v3: which sources hold which drawers. Drawer ids are content-derived, so two sources (two files
 * with the same license header) can hold one drawer; it is removed only when no source holds it
 * and it was not filed directly (`file` / `remember` without a source). `drawers.source` and
 * `position` stay the drawer's own place (neighbours, FTS context): when that source lets go, the
 * drawer moves to another holder. `sources.origin` records where a mined source came from (the
 * project root, the export file), so a later run of the same origin can remove sources gone from it.
 *
 * Existing palaces: every drawer is linked to its own source, drawers without one are filed
 * directly. A palace from before could not record the other holders of a shared drawer; a mined
 * source that held more drawers than it owns gets the content hash "" (no run produces it), so
 * the next mining run files it again and records its links.
 */
export const DRAWER_SOURCES_MIGRATION = `
  CREATE TABLE drawer_sources (
    source_key TEXT NOT NULL,
    drawer_rowid INTEGER NOT NULL,
    position INTEGER,
    PRIMARY KEY (source_key, drawer_rowid)
  ) WITHOUT ROWID;
  CREATE INDEX drawer_sources_drawer ON drawer_sources(drawer_rowid);
  CREATE TRIGGER drawer_sources_removed AFTER DELETE ON drawers
    BEGIN DELETE FROM drawer_sources WHERE drawer_rowid = old.rowid; END;
  ALTER TABLE drawers ADD COLUMN filed_directly INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE sources ADD COLUMN origin TEXT;
  INSERT INTO drawer_sources (source_key, drawer_rowid, position)
    SELECT source, rowid, position FROM drawers WHERE source IS NOT NULL;
  UPDATE drawers SET filed_directly = 1 WHERE source IS NULL;
  UPDATE sources SET content_hash = ''
    WHERE drawer_count > (SELECT COUNT(*) FROM drawer_sources l WHERE l.source_key = sources.key);
`;
