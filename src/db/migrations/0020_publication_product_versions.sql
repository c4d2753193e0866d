-- What each product row was when a publication was made ({ id: 'revision@updatedAt' }): a restore
-- leaves a row that still is what it was, and writes the others. Older
-- publications have none, and a restore from them writes every product.
alter table menu_publications add column product_versions jsonb;
