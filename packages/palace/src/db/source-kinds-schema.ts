/**
 * v4: mined source keys carry their kind (`project:<wing>/<path>`, `convo:<wing>/<id>`). Keys
 * were `<wing>/<id>` before, so a conversation whose id was a project file's path in the same
 * wing (the Claude Code hook's default wing is the project folder's name) replaced that file's
 * drawers. Each existing key gets the kind its origin says (`project:<root>`, `convos:<file>`);
 * a source recorded before origins were (schema v2) is a conversation when its drawers are in
 * the "conversations" hall, as the conversation miner files them, else a project file. The key
 * is renamed everywhere it is stored: `sources`, `drawer_sources` and the drawers' own `source`.
 * The vector index's copy of `source` is left as it was: nothing reads it (it is only
 * metadata), and re-sending it would mean embedding every mined drawer again.
 */
export const SOURCE_KINDS_MIGRATION = `
  CREATE TEMP TABLE source_renames AS
    SELECT key AS old_key,
      CASE
        WHEN origin LIKE 'project:%' THEN 'project:' || key
        WHEN origin LIKE 'convos:%' THEN 'convo:' || key
        WHEN EXISTS (SELECT 1 FROM drawers d WHERE d.source = sources.key AND d.hall = 'conversations')
          THEN 'convo:' || key
        ELSE 'project:' || key
      END AS new_key
    FROM sources;
  UPDATE drawers SET source = (SELECT new_key FROM source_renames WHERE old_key = drawers.source)
    WHERE source IN (SELECT old_key FROM source_renames);
  UPDATE drawer_sources
    SET source_key = (SELECT new_key FROM source_renames WHERE old_key = drawer_sources.source_key)
    WHERE source_key IN (SELECT old_key FROM source_renames);
  UPDATE sources SET key = (SELECT new_key FROM source_renames WHERE old_key = sources.key);
  DROP TABLE source_renames;
`;
