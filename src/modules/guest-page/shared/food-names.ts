// The names of the allergens and dietary labels (decisions 14) in every language of the reference,
// for the guest page. EU languages use the terms of Regulation (EU) No 1169/2011, Annex II (and
// Regulation 828/2014 for "gluten-free"); the others the usual food-labelling terms (uk: the law on
// consumer food information, aligned with 1169/2011; ru: TR CU 022/2011; zh-CN: GB 7718; ar: GSO 9).
// Server only: the page's script gets the names of its page's language in the data block, never
// this table (docs/guest-page.md, size budget).
import type { ALLERGEN_CODES, DIETARY_LABEL_CODES, LANGUAGES } from '../../reference/catalog.js';

type AllergenCode = (typeof ALLERGEN_CODES)[number];
type LabelCode = (typeof DIETARY_LABEL_CODES)[number];
type Language = (typeof LANGUAGES)[number];

export interface FoodNameTable {
  allergens: Record<AllergenCode, string>;
  labels: Record<LabelCode, string>;
}

export const FOOD_NAMES: Record<Language, FoodNameTable> = {
  uk: {
    allergens: {
      gluten: 'Зернові, що містять глютен', crustaceans: 'Ракоподібні', eggs: 'Яйця', fish: 'Риба', peanuts: 'Арахіс',
      soybeans: 'Соя', milk: 'Молоко', nuts: 'Горіхи', celery: 'Селера', mustard: 'Гірчиця', sesame: 'Насіння кунжуту',
      sulphites: 'Діоксид сірки та сульфіти', lupin: 'Люпин', molluscs: 'Молюски',
    },
    labels: { vegetarian: 'Вегетаріанське', vegan: 'Веганське', gluten_free: 'Без глютену', lactose_free: 'Без лактози', halal: 'Халяль', kosher: 'Кошерне' },
  },
  en: {
    allergens: {
      gluten: 'Cereals containing gluten', crustaceans: 'Crustaceans', eggs: 'Eggs', fish: 'Fish', peanuts: 'Peanuts',
      soybeans: 'Soybeans', milk: 'Milk', nuts: 'Nuts', celery: 'Celery', mustard: 'Mustard', sesame: 'Sesame seeds',
      sulphites: 'Sulphur dioxide and sulphites', lupin: 'Lupin', molluscs: 'Molluscs',
    },
    labels: { vegetarian: 'Vegetarian', vegan: 'Vegan', gluten_free: 'Gluten-free', lactose_free: 'Lactose-free', halal: 'Halal', kosher: 'Kosher' },
  },
  es: {
    allergens: {
      gluten: 'Cereales que contengan gluten', crustaceans: 'Crustáceos', eggs: 'Huevos', fish: 'Pescado', peanuts: 'Cacahuetes',
      soybeans: 'Soja', milk: 'Leche', nuts: 'Frutos de cáscara', celery: 'Apio', mustard: 'Mostaza', sesame: 'Granos de sésamo',
      sulphites: 'Dióxido de azufre y sulfitos', lupin: 'Altramuces', molluscs: 'Moluscos',
    },
    labels: { vegetarian: 'Vegetariano', vegan: 'Vegano', gluten_free: 'Sin gluten', lactose_free: 'Sin lactosa', halal: 'Halal', kosher: 'Kosher' },
  },
  fr: {
    allergens: {
      gluten: 'Céréales contenant du gluten', crustaceans: 'Crustacés', eggs: 'Œufs', fish: 'Poissons', peanuts: 'Arachides',
      soybeans: 'Soja', milk: 'Lait', nuts: 'Fruits à coque', celery: 'Céleri', mustard: 'Moutarde', sesame: 'Graines de sésame',
      sulphites: 'Anhydride sulfureux et sulfites', lupin: 'Lupin', molluscs: 'Mollusques',
    },
    labels: { vegetarian: 'Végétarien', vegan: 'Végan', gluten_free: 'Sans gluten', lactose_free: 'Sans lactose', halal: 'Halal', kosher: 'Casher' },
  },
  de: {
    allergens: {
      gluten: 'Glutenhaltiges Getreide', crustaceans: 'Krebstiere', eggs: 'Eier', fish: 'Fische', peanuts: 'Erdnüsse',
      soybeans: 'Sojabohnen', milk: 'Milch', nuts: 'Schalenfrüchte', celery: 'Sellerie', mustard: 'Senf', sesame: 'Sesamsamen',
      sulphites: 'Schwefeldioxid und Sulphite', lupin: 'Lupinen', molluscs: 'Weichtiere',
    },
    labels: { vegetarian: 'Vegetarisch', vegan: 'Vegan', gluten_free: 'Glutenfrei', lactose_free: 'Laktosefrei', halal: 'Halal', kosher: 'Koscher' },
  },
  it: {
    allergens: {
      gluten: 'Cereali contenenti glutine', crustaceans: 'Crostacei', eggs: 'Uova', fish: 'Pesce', peanuts: 'Arachidi',
      soybeans: 'Soia', milk: 'Latte', nuts: 'Frutta a guscio', celery: 'Sedano', mustard: 'Senape', sesame: 'Semi di sesamo',
      sulphites: 'Anidride solforosa e solfiti', lupin: 'Lupini', molluscs: 'Molluschi',
    },
    labels: { vegetarian: 'Vegetariano', vegan: 'Vegano', gluten_free: 'Senza glutine', lactose_free: 'Senza lattosio', halal: 'Halal', kosher: 'Kosher' },
  },
  'pt-BR': {
    allergens: {
      gluten: 'Cereais que contêm glúten', crustaceans: 'Crustáceos', eggs: 'Ovos', fish: 'Peixes', peanuts: 'Amendoim',
      soybeans: 'Soja', milk: 'Leite', nuts: 'Castanhas e nozes', celery: 'Aipo', mustard: 'Mostarda', sesame: 'Sementes de gergelim',
      sulphites: 'Dióxido de enxofre e sulfitos', lupin: 'Tremoço', molluscs: 'Moluscos',
    },
    labels: { vegetarian: 'Vegetariano', vegan: 'Vegano', gluten_free: 'Sem glúten', lactose_free: 'Sem lactose', halal: 'Halal', kosher: 'Kosher' },
  },
  ru: {
    allergens: {
      gluten: 'Злаки, содержащие глютен', crustaceans: 'Ракообразные', eggs: 'Яйца', fish: 'Рыба', peanuts: 'Арахис',
      soybeans: 'Соя', milk: 'Молоко', nuts: 'Орехи', celery: 'Сельдерей', mustard: 'Горчица', sesame: 'Кунжут',
      sulphites: 'Диоксид серы и сульфиты', lupin: 'Люпин', molluscs: 'Моллюски',
    },
    labels: { vegetarian: 'Вегетарианское', vegan: 'Веганское', gluten_free: 'Без глютена', lactose_free: 'Без лактозы', halal: 'Халяль', kosher: 'Кошерное' },
  },
  pl: {
    allergens: {
      gluten: 'Zboża zawierające gluten', crustaceans: 'Skorupiaki', eggs: 'Jaja', fish: 'Ryby', peanuts: 'Orzeszki ziemne (arachidowe)',
      soybeans: 'Soja', milk: 'Mleko', nuts: 'Orzechy', celery: 'Seler', mustard: 'Gorczyca', sesame: 'Nasiona sezamu',
      sulphites: 'Dwutlenek siarki i siarczyny', lupin: 'Łubin', molluscs: 'Mięczaki',
    },
    labels: { vegetarian: 'Wegetariańskie', vegan: 'Wegańskie', gluten_free: 'Bezglutenowe', lactose_free: 'Bez laktozy', halal: 'Halal', kosher: 'Koszerne' },
  },
  cs: {
    allergens: {
      gluten: 'Obiloviny obsahující lepek', crustaceans: 'Korýši', eggs: 'Vejce', fish: 'Ryby', peanuts: 'Jádra podzemnice olejné (arašídy)',
      soybeans: 'Sójové boby', milk: 'Mléko', nuts: 'Skořápkové plody', celery: 'Celer', mustard: 'Hořčice', sesame: 'Sezamová semena',
      sulphites: 'Oxid siřičitý a siřičitany', lupin: 'Vlčí bob (lupina)', molluscs: 'Měkkýši',
    },
    labels: { vegetarian: 'Vegetariánské', vegan: 'Veganské', gluten_free: 'Bezlepkové', lactose_free: 'Bez laktózy', halal: 'Halal', kosher: 'Košer' },
  },
  'zh-CN': {
    allergens: {
      gluten: '含麸质的谷物', crustaceans: '甲壳类动物', eggs: '蛋类', fish: '鱼类', peanuts: '花生',
      soybeans: '大豆', milk: '乳及乳制品', nuts: '坚果', celery: '芹菜', mustard: '芥末', sesame: '芝麻',
      sulphites: '二氧化硫和亚硫酸盐', lupin: '羽扇豆', molluscs: '软体动物',
    },
    labels: { vegetarian: '素食', vegan: '纯素', gluten_free: '无麸质', lactose_free: '无乳糖', halal: '清真', kosher: '犹太洁食' },
  },
  ar: {
    allergens: {
      gluten: 'الحبوب المحتوية على الغلوتين', crustaceans: 'القشريات', eggs: 'البيض', fish: 'الأسماك', peanuts: 'الفول السوداني',
      soybeans: 'فول الصويا', milk: 'الحليب', nuts: 'المكسرات', celery: 'الكرفس', mustard: 'الخردل', sesame: 'بذور السمسم',
      sulphites: 'ثاني أكسيد الكبريت والكبريتيت', lupin: 'الترمس', molluscs: 'الرخويات',
    },
    labels: { vegetarian: 'نباتي', vegan: 'نباتي صرف', gluten_free: 'خالٍ من الغلوتين', lactose_free: 'خالٍ من اللاكتوز', halal: 'حلال', kosher: 'كوشر' },
  },
  ja: {
    allergens: {
      gluten: 'グルテンを含む穀類', crustaceans: '甲殻類', eggs: '卵', fish: '魚類', peanuts: '落花生（ピーナッツ）',
      soybeans: '大豆', milk: '乳', nuts: 'ナッツ類', celery: 'セロリ', mustard: 'マスタード', sesame: 'ごま',
      sulphites: '二酸化硫黄及び亜硫酸塩', lupin: 'ルピナス', molluscs: '軟体動物',
    },
    labels: { vegetarian: 'ベジタリアン', vegan: 'ヴィーガン', gluten_free: 'グルテンフリー', lactose_free: '乳糖不使用', halal: 'ハラール', kosher: 'コーシャ' },
  },
  uz: {
    allergens: {
      gluten: 'Glyuten saqlovchi donli ekinlar', crustaceans: 'Qisqichbaqasimonlar', eggs: 'Tuxum', fish: 'Baliq', peanuts: 'Yeryongʻoq',
      soybeans: 'Soya', milk: 'Sut', nuts: 'Yongʻoqlar', celery: 'Selderey', mustard: 'Xantal', sesame: 'Kunjut urugʻi',
      sulphites: 'Oltingugurt dioksidi va sulfitlar', lupin: 'Lyupin', molluscs: 'Mollyuskalar',
    },
    labels: { vegetarian: 'Vegetarian', vegan: 'Vegan', gluten_free: 'Glyutensiz', lactose_free: 'Laktozasiz', halal: 'Halol', kosher: 'Kosher' },
  },
};

/**
 * The names in a page's locale: the reference language it is (`pt-BR`, `de`), else the one its
 * language subtag names (`pt` is `pt-BR`, `zh-Hans` is `zh-CN`), else English.
 */
export function foodNames(locale: string): FoodNameTable {
  const wanted = locale.toLowerCase().replace('_', '-');
  const languages = Object.keys(FOOD_NAMES) as Language[];
  const exact = languages.find((l) => l.toLowerCase() === wanted);
  const primary = wanted.split('-')[0];
  const language = exact ?? languages.find((l) => l.toLowerCase().split('-')[0] === primary) ?? 'en';
  return FOOD_NAMES[language];
}
