-- Publication history: a publication made by a restore names the one it restored.
-- The id is kept as it was when that one is pruned, so it has no foreign key.
alter table menu_publications add column restored_from uuid;
