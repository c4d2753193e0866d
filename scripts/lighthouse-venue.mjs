// The venue `npm run lighthouse` measures: a café as a real one would set it up, through the public
// HTTP APIs of a running Carta (operator API for the venue and its key, /v1 for the rest), so the
// pages Lighthouse sees are made exactly as a guest's would be. Five categories in all three card
// styles, photos on most dishes, badges in several colours, every modifier type, Arabic
// translations, a logo, an accent colour, two banners with pictures and a table.
import sharp from 'sharp';

const AR = (name, description) => ({ ar: description ? { name, description } : { name } });

const CATEGORIES = [
  { externalId: 'breakfast', name: 'Breakfast', sortOrder: 1, cardStyle: 'premium', translations: AR('الفطور') },
  { externalId: 'mains', name: 'Mains', sortOrder: 2, translations: AR('الأطباق الرئيسية') },
  { externalId: 'sides', name: 'Sides', sortOrder: 3, cardStyle: 'compact', translations: AR('أطباق جانبية') },
  { externalId: 'drinks', name: 'Drinks', sortOrder: 4, cardStyle: 'compact', translations: AR('المشروبات') },
  { externalId: 'desserts', name: 'Desserts', sortOrder: 5, cardStyle: 'minimalism', translations: AR('الحلويات') },
];

const INGREDIENTS = [
  ['bun-white', 'White bun', 'خبز أبيض', ['gluten']],
  ['bun-brioche', 'Brioche bun', 'خبز بريوش', ['gluten', 'eggs', 'milk']],
  ['cheese', 'Cheddar', 'جبنة شيدر', ['milk']],
  ['bacon', 'Bacon', 'لحم مقدد', []],
  ['avocado', 'Avocado', 'أفوكادو', []],
  ['onion', 'Red onion', 'بصل أحمر', []],
  ['pickles', 'Pickles', 'مخلل', ['mustard']],
  ['egg', 'Poached egg', 'بيض مسلوق', ['eggs']],
  ['salmon', 'Smoked salmon', 'سلمون مدخن', ['fish']],
  ['sourdough', 'Sourdough', 'خبز العجين المخمر', ['gluten']],
  ['oat-milk', 'Oat milk', 'حليب الشوفان', ['gluten']],
  ['whole-milk', 'Whole milk', 'حليب كامل الدسم', ['milk']],
  ['extra-shot', 'Extra shot', 'جرعة إضافية', []],
  ['syrup', 'Vanilla syrup', 'شراب الفانيليا', []],
  ['small', 'Small', 'صغير', []],
  ['medium', 'Medium', 'وسط', []],
  ['large', 'Large', 'كبير', []],
  ['ice-cream', 'Vanilla ice cream', 'آيس كريم الفانيليا', ['milk']],
  ['chilli', 'Chilli', 'فلفل حار', []],
].map(([externalId, name, ar, allergens]) => ({ externalId, name, translations: AR(ar), allergens }));

const option = (ingredientExternalId, priceAdjustment = 0, extra = {}) => ({ ingredientExternalId, priceAdjustment, ...extra });
const SIZES = {
  name: 'Size',
  type: 'single_choice',
  translations: AR('الحجم'),
  options: [option('small'), option('medium', 40, { isDefault: true }), option('large', 80)],
};
const MILK = {
  name: 'Milk',
  type: 'single_choice',
  isRequired: false,
  translations: AR('الحليب'),
  options: [option('whole-milk'), option('oat-milk', 50)],
};
const COFFEE_EXTRAS = {
  name: 'Extras',
  type: 'add_ingredients',
  maxSelections: 3,
  maxQuantityPerOption: 2,
  translations: AR('إضافات'),
  options: [option('extra-shot', 70), option('syrup', 50)],
};

/** Products: [externalId, category, name, Arabic name, description, Arabic description, price, extra fields]. */
const PRODUCTS = [
  [
    'eggs-benedict',
    'breakfast',
    'Eggs Benedict',
    'بيض بنديكت',
    'Two poached eggs on sourdough with hollandaise and chives',
    'بيضتان مسلوقتان على خبز العجين المخمر مع صلصة الهولنديز',
    1250,
    {
      badgeLabel: 'Popular',
      badgeColor: 'RED',
      translations: { ar: { badgeLabel: 'الأكثر طلباً' } },
      ingredientExternalIds: ['egg', 'sourdough'],
      calories: 640,
      modifierGroups: [
        {
          name: 'Add',
          type: 'add_ingredients',
          maxQuantityPerOption: 1,
          translations: AR('أضف'),
          options: [option('salmon', 350), option('bacon', 250), option('avocado', 200)],
        },
      ],
    },
  ],
  [
    'avocado-toast',
    'breakfast',
    'Avocado toast',
    'توست الأفوكادو',
    'Smashed avocado, chilli flakes and lime on toasted sourdough',
    'أفوكادو مهروس مع رقائق الفلفل الحار والليمون على خبز محمص',
    1050,
    {
      badgeLabel: 'Vegan',
      badgeColor: 'GREEN',
      translations: { ar: { badgeLabel: 'نباتي' } },
      dietaryLabels: ['vegan'],
      ingredientExternalIds: ['avocado', 'sourdough', 'chilli'],
      spiceLevel: 1,
      modifierGroups: [{ name: 'Remove', type: 'remove_ingredients', translations: AR('بدون'), options: [option('chilli')] }],
    },
  ],
  [
    'pancakes',
    'breakfast',
    'Buttermilk pancakes',
    'فطائر اللبن',
    'A stack of three with maple syrup and berries',
    'ثلاث فطائر مع شراب القيقب والتوت',
    950,
    { dietaryLabels: ['vegetarian'], allergens: ['gluten', 'milk', 'eggs'] },
  ],
  [
    'burger',
    'mains',
    'Classic burger',
    'برغر كلاسيكي',
    'Beef patty, lettuce, tomato and our house sauce',
    'لحم بقري مع خس وطماطم وصلصة البيت',
    1400,
    {
      badgeLabel: 'Chef’s pick',
      badgeColor: 'PURPLE',
      translations: { ar: { badgeLabel: 'اختيار الشيف' } },
      ingredientExternalIds: ['onion', 'pickles'],
      calories: 980,
      spiceLevel: 0,
      nutrition: { fat: 42, saturatedFat: 16, carbohydrate: 52, sugars: 9, protein: 38, salt: 2.4 },
      modifierGroups: [
        { name: 'Bun', type: 'single_choice', translations: AR('الخبز'), options: [option('bun-white'), option('bun-brioche', 150)] },
        {
          name: 'Extras',
          type: 'add_ingredients',
          maxSelections: 4,
          maxQuantityPerOption: 2,
          translations: AR('إضافات'),
          options: [option('cheese', 100), option('bacon', 200), option('avocado', 200)],
        },
        { name: 'Remove', type: 'remove_ingredients', translations: AR('بدون'), options: [option('onion'), option('pickles')] },
      ],
    },
  ],
  [
    'salmon-bowl',
    'mains',
    'Salmon poke bowl',
    'وعاء بوكي السلمون',
    'Rice, smoked salmon, edamame, cucumber and sesame dressing',
    'أرز وسلمون مدخن وفول الصويا وخيار مع صلصة السمسم',
    1550,
    {
      allergens: ['fish', 'sesame', 'soybeans'],
      calories: 720,
      modifierGroups: [
        { name: 'Size', type: 'single_choice', translations: AR('الحجم'), options: [option('medium'), option('large', 300)] },
      ],
    },
  ],
  [
    'pasta',
    'mains',
    'Tomato and basil pasta',
    'معكرونة بالطماطم والريحان',
    'Fresh pasta in a slow-cooked tomato sauce',
    'معكرونة طازجة بصلصة الطماطم المطهوة ببطء',
    1150,
    {
      dietaryLabels: ['vegetarian'],
      allergens: ['gluten'],
      salePriceMinor: 990,
      isSaleActive: true,
      badgeLabel: 'Offer',
      badgeColor: 'YELLOW',
      translations: { ar: { badgeLabel: 'عرض' } },
    },
  ],
  [
    'chicken-wrap',
    'mains',
    'Spicy chicken wrap',
    'راب الدجاج الحار',
    'Grilled chicken, slaw and chilli mayo in a flatbread',
    'دجاج مشوي مع سلطة الملفوف ومايونيز حار في خبز رقيق',
    1100,
    { spiceLevel: 2, allergens: ['gluten', 'eggs'] },
  ],
  [
    'fries',
    'sides',
    'Fries',
    'بطاطا مقلية',
    'Skin-on, with sea salt',
    'بقشرها مع ملح البحر',
    450,
    { dietaryLabels: ['vegan'], amount: 180, unit: 'G' },
  ],
  ['sweet-fries', 'sides', 'Sweet potato fries', 'بطاطا حلوة مقلية', null, null, 550, { dietaryLabels: ['vegan'], amount: 180, unit: 'G' }],
  [
    'side-salad',
    'sides',
    'Side salad',
    'سلطة جانبية',
    'Leaves, cucumber and a lemon dressing',
    'أوراق خضراء وخيار مع صلصة الليمون',
    400,
    { dietaryLabels: ['vegan'] },
  ],
  [
    'flat-white',
    'drinks',
    'Flat white',
    'فلات وايت',
    'Double ristretto with steamed milk',
    'جرعتان من الريستريتو مع حليب مبخر',
    380,
    { modifierGroups: [SIZES, MILK, COFFEE_EXTRAS] },
  ],
  ['cappuccino', 'drinks', 'Cappuccino', 'كابتشينو', null, null, 360, { modifierGroups: [SIZES, MILK, COFFEE_EXTRAS] }],
  [
    'lemonade',
    'drinks',
    'Homemade lemonade',
    'ليموناضة منزلية',
    'Lemons, mint and a little cane sugar',
    'ليمون ونعناع وقليل من سكر القصب',
    420,
    { amount: 400, unit: 'ML', badgeLabel: 'New', badgeColor: 'BLUE', translations: { ar: { badgeLabel: 'جديد' } } },
  ],
  ['water', 'drinks', 'Still water', 'مياه معدنية', null, null, 250, { amount: 500, unit: 'ML' }],
  [
    'cheesecake',
    'desserts',
    'Baked cheesecake',
    'تشيز كيك مخبوز',
    'New York style, with a berry compote',
    'على طريقة نيويورك مع كومبوت التوت',
    650,
    {
      allergens: ['milk', 'eggs', 'gluten'],
      badgeLabel: 'Homemade',
      badgeColor: 'GREY',
      translations: { ar: { badgeLabel: 'صنع منزلي' } },
    },
  ],
  [
    'brownie',
    'desserts',
    'Chocolate brownie',
    'براوني الشوكولاتة',
    'Warm, with vanilla ice cream',
    'دافئ مع آيس كريم الفانيليا',
    600,
    {
      allergens: ['milk', 'eggs', 'gluten'],
      modifierGroups: [{ name: 'Remove', type: 'remove_ingredients', translations: AR('بدون'), options: [option('ice-cream')] }],
    },
  ],
];

/** Dishes without a photo, as on a real menu (and the compact and minimalism styles without one). */
const NO_PHOTO = new Set(['water', 'side-salad', 'brownie']);

function productInputs() {
  return PRODUCTS.map(([externalId, category, name, arName, description, arDescription, priceMinor, extra], i) => ({
    externalId,
    name,
    ...(description ? { description } : {}),
    priceMinor,
    categoryExternalId: category,
    sortOrder: i + 1,
    ...extra,
    translations: { ar: { name: arName, ...(arDescription ? { description: arDescription } : {}), ...extra.translations?.ar } },
  }));
}

/**
 * A photo-like square picture: soft light and shade over a plate, with grain, so that it encodes
 * to the size of a real photo rather than of a flat colour. `hue` tells the dishes apart.
 */
async function photo(hue, width = 1200, height = width) {
  const plate = Math.round(Math.min(width, height) * 0.36);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs>
      <radialGradient id="bg" cx="30%" cy="25%" r="90%"><stop offset="0" stop-color="hsl(${hue},45%,78%)"/><stop offset="1" stop-color="hsl(${(hue + 40) % 360},35%,28%)"/></radialGradient>
      <radialGradient id="food" cx="45%" cy="40%" r="60%"><stop offset="0" stop-color="hsl(${(hue + 180) % 360},70%,62%)"/><stop offset="1" stop-color="hsl(${(hue + 200) % 360},60%,30%)"/></radialGradient>
    </defs>
    <rect width="100%" height="100%" fill="url(#bg)"/>
    <circle cx="${width / 2}" cy="${height / 2}" r="${plate}" fill="#f4f1ea"/>
    <circle cx="${width / 2}" cy="${height / 2}" r="${plate * 0.78}" fill="#e8e3d8"/>
    <ellipse cx="${width / 2}" cy="${height / 2}" rx="${plate * 0.6}" ry="${plate * 0.45}" fill="url(#food)"/>
  </svg>`;
  const grain = await sharp({
    create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 18 } },
  })
    .blur(1.2)
    .png()
    .toBuffer();
  return sharp(Buffer.from(svg))
    .composite([{ input: grain, blend: 'soft-light' }])
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** A small client for one Carta: JSON in and out, a refusal is an error naming the call. */
function client(origin, adminToken) {
  return async function request(method, path, { key, body, headers = {}, expect = [200, 201] } = {}) {
    const res = await fetch(origin + path, {
      method,
      headers: {
        authorization: `Bearer ${key ?? adminToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!expect.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
}

/**
 * Sets the venue up on the Carta at `origin` and places a dine-in order at its table, confirmed by
 * the kitchen. Returns the URLs of the guest pages.
 */
export async function seedVenue(origin, adminToken) {
  const request = client(origin, adminToken);
  const venue = (await request('POST', '/admin/v1/venues', { body: { name: 'Café Nord', currency: 'EUR', plan: 'standard' } })).body;
  const key = (await request('POST', `/admin/v1/venues/${venue.id}/api-keys`, { body: { mode: 'live' } })).body.key;
  const v1 = (method, path, options = {}) => request(method, `/v1${path}`, { key, ...options });

  await v1('PATCH', '/settings', {
    body: {
      enabledLanguages: ['en', 'ar'],
      timezone: 'Europe/Berlin',
      cardStyle: 'premium',
      theme: { accentColor: '#8a3b12' },
      // Open around the clock, so the page offers ordering whenever the script runs.
      openingHours: null,
      orderConfig: {
        acceptingOrders: true,
        dineInEnabled: true,
        pickupEnabled: true,
        deliveryEnabled: false,
        minOrderMinor: 0,
        prepTimeMinutes: 15,
      },
    },
  });
  await v1('POST', '/logo', { body: { base64: (await photo(20, 512)).toString('base64') } });

  const sync = (await v1('POST', '/sync', { body: { categories: CATEGORIES, ingredients: INGREDIENTS, products: productInputs() } })).body;
  for (const section of ['categories', 'ingredients', 'products']) {
    if (sync[section]?.errors?.length) throw new Error(`sync ${section}: ${JSON.stringify(sync[section].errors)}`);
  }
  let hue = 0;
  for (const [externalId] of PRODUCTS) {
    hue = (hue + 47) % 360;
    if (!NO_PHOTO.has(externalId))
      await v1('POST', `/products/${externalId}/image`, { body: { base64: (await photo(hue)).toString('base64') } });
  }
  await v1('POST', '/publish');

  const banners = [
    {
      title: 'Breakfast all day',
      subtitle: 'Eggs Benedict, pancakes and fresh coffee until closing',
      productRef: 'eggs-benedict',
      translations: { ar: { title: 'الفطور طوال اليوم', subtitle: 'بيض بنديكت وفطائر وقهوة طازجة حتى الإغلاق' } },
    },
    {
      title: 'Homemade lemonade',
      subtitle: 'Squeezed every morning',
      productRef: 'lemonade',
      translations: { ar: { title: 'ليموناضة منزلية', subtitle: 'تُعصر كل صباح' } },
    },
  ];
  for (const [i, banner] of banners.entries()) {
    const created = (await v1('POST', '/banners', { body: { ...banner, sortOrder: i + 1 } })).body;
    await v1('POST', `/banners/${created.id}/image`, { body: { base64: (await photo(30 + i * 150, 1536, 512)).toString('base64') } });
  }

  const table = (await v1('POST', '/tables', { body: { name: '5' } })).body;
  const tableToken = table.qrUrl.split('/t/')[1];

  // The status page needs an order: a burger with its required bun, placed at the table as the page would.
  const menu = (await request('GET', `/guest/v1/venues/${venue.slug}/menu`)).body;
  const burger = menu.products.find((p) => p.name === 'Classic burger');
  const modifiers = burger.modifierGroups.filter((g) => g.type === 'single_choice').map((g) => ({ optionId: g.options[0].id }));
  const placed = await request('POST', `/guest/v1/venues/${venue.slug}/orders`, {
    headers: { 'idempotency-key': `lighthouse-${venue.id}` },
    body: { type: 'dine_in', paymentMethod: 'cash', tableId: table.id, items: [{ productId: burger.id, quantity: 1, modifiers }] },
  });
  const orderToken = placed.headers.get('location').split('/orders/')[1];
  const orders = (await v1('GET', '/orders?updatedSince=1970-01-01T00:00:00.000Z&limit=10')).body.items;
  const order = orders.find((o) => o.orderNumber === placed.body.orderNumber);
  await v1('PATCH', `/orders/${order.id}/status`, { body: { status: 'confirmed' } });

  return {
    slug: venue.slug,
    dialogProductId: burger.id,
    tablePage: `${origin}/t/${tableToken}`,
    menuPage: `${origin}/m/${venue.slug}`,
    statusPage: `${origin}/m/${venue.slug}/orders/${orderToken}`,
  };
}
