// The page's own words (menu content comes translated from the venue). English is complete and the
// fallback; a language missing here shows the menu in its language and these words in English.

const en = {
  table: 'Table {name}',
  categories: 'Categories',
  language: 'Language',
  add: 'Add',
  addNamed: 'Add {name}',
  addToOrder: 'Add to order · {price}',
  close: 'Close',
  required: 'Required',
  chooseOne: 'Choose an option',
  quantity: 'Quantity',
  decrease: 'One less',
  increase: 'One more',
  remove: 'Remove',
  yourOrder: 'Your order',
  viewOrder: 'View order ({count}) · {price}',
  emptyOrder: 'Your order is empty.',
  subtotal: 'Subtotal',
  discount: 'Discount',
  deliveryFee: 'Delivery',
  total: 'Total',
  minOrder: 'Minimum order {amount}',
  orderType: 'How would you like it?',
  type_dine_in: 'At the table',
  type_pickup: 'Pickup',
  type_delivery: 'Delivery',
  payment: 'Payment',
  pay_cash: 'Cash',
  pay_terminal: 'Card',
  name: 'Name',
  phone: 'Phone',
  email: 'Email (optional)',
  deliveryAddress: 'Delivery address',
  deliveryNotes: 'Notes for the courier',
  comment: 'Note for the kitchen',
  placeOrder: 'Place order',
  placing: 'Placing your order…',
  fixErrors: 'Please check the fields marked below.',
  networkError: 'Connection problem: your order could not be confirmed. Try again: it will not be placed twice.',
  menuError: 'The menu could not be loaded for ordering. Check the connection and try again.',
  closedNow: 'Ordering is closed right now. You can still browse the menu.',
  closedLink: 'This link does not take orders. You can still browse the menu.',
  ingredients: 'Ingredients',
  offer: 'Offer',
  added: '{name} added to your order',
  order: 'Order {number}',
  status_new: 'Received',
  status_confirmed: 'Confirmed',
  status_preparing: 'Being prepared',
  status_delivering: 'On its way',
  status_completed: 'Completed',
  status_cancelled: 'Cancelled',
  statusLive: 'This page follows your order by itself.',
  backToMenu: 'Back to the menu',
  notFound: 'Not found',
  tableNotFound: "This table's code is not active. Please ask the staff.",
  venueNotFound: 'We could not find this menu.',
  notPublished: 'This menu is not published yet.',
  unavailable: 'This menu is not available right now.',
  orderNotFound: 'We could not find this order.',
  other: 'More',
};

export type UiStrings = typeof en;
const translations: Record<string, Partial<UiStrings>> = {
  es: {
    table: 'Mesa {name}', categories: 'Categorías', language: 'Idioma', add: 'Añadir', addNamed: 'Añadir {name}',
    addToOrder: 'Añadir al pedido · {price}', close: 'Cerrar', required: 'Obligatorio', chooseOne: 'Elige una opción',
    quantity: 'Cantidad', decrease: 'Uno menos', increase: 'Uno más', remove: 'Quitar', yourOrder: 'Tu pedido',
    viewOrder: 'Ver pedido ({count}) · {price}', emptyOrder: 'Tu pedido está vacío.', subtotal: 'Subtotal', discount: 'Descuento', deliveryFee: 'Envío',
    total: 'Total', minOrder: 'Pedido mínimo {amount}', orderType: '¿Cómo lo quieres?', type_dine_in: 'En la mesa',
    type_pickup: 'Para recoger', type_delivery: 'A domicilio', payment: 'Pago', pay_cash: 'Efectivo', pay_terminal: 'Tarjeta',
    name: 'Nombre', phone: 'Teléfono', email: 'Correo (opcional)', deliveryAddress: 'Dirección de entrega',
    deliveryNotes: 'Notas para el repartidor', comment: 'Nota para la cocina', placeOrder: 'Hacer el pedido',
    placing: 'Enviando tu pedido…', fixErrors: 'Revisa los campos marcados.', networkError: 'Problema de conexión: no pudimos confirmar el pedido. Inténtalo de nuevo: no se hará dos veces.',
    menuError: 'No se pudo cargar la carta para pedir. Revisa la conexión e inténtalo de nuevo.',
    closedNow: 'Ahora no se aceptan pedidos. Puedes ver la carta.', closedLink: 'Este enlace no acepta pedidos. Puedes ver la carta.',
    ingredients: 'Ingredientes', offer: 'Oferta', added: '{name} añadido a tu pedido', order: 'Pedido {number}',
    status_new: 'Recibido', status_confirmed: 'Confirmado', status_preparing: 'En preparación', status_delivering: 'En camino',
    status_completed: 'Completado', status_cancelled: 'Cancelado', statusLive: 'Esta página sigue tu pedido sola.',
    backToMenu: 'Volver a la carta', notFound: 'No encontrado', tableNotFound: 'El código de esta mesa no está activo. Pregunta al personal.',
    venueNotFound: 'No encontramos esta carta.', notPublished: 'Esta carta aún no está publicada.', unavailable: 'Esta carta no está disponible ahora.',
    orderNotFound: 'No encontramos este pedido.', other: 'Más',
  },
  fr: {
    table: 'Table {name}', categories: 'Catégories', language: 'Langue', add: 'Ajouter', addNamed: 'Ajouter {name}',
    addToOrder: 'Ajouter à la commande · {price}', close: 'Fermer', required: 'Obligatoire', chooseOne: 'Choisissez une option',
    quantity: 'Quantité', decrease: 'Un de moins', increase: 'Un de plus', remove: 'Retirer', yourOrder: 'Votre commande',
    viewOrder: 'Voir la commande ({count}) · {price}', emptyOrder: 'Votre commande est vide.', subtotal: 'Sous-total', discount: 'Remise', deliveryFee: 'Livraison',
    total: 'Total', minOrder: 'Commande minimum {amount}', orderType: 'Comment la voulez-vous ?', type_dine_in: 'À table',
    type_pickup: 'À emporter', type_delivery: 'Livraison', payment: 'Paiement', pay_cash: 'Espèces', pay_terminal: 'Carte',
    name: 'Nom', phone: 'Téléphone', email: 'E-mail (facultatif)', deliveryAddress: 'Adresse de livraison',
    deliveryNotes: 'Notes pour le livreur', comment: 'Note pour la cuisine', placeOrder: 'Commander',
    placing: 'Envoi de votre commande…', fixErrors: 'Vérifiez les champs indiqués.', networkError: "Problème de connexion : la commande n'a pas pu être confirmée. Réessayez : elle ne sera pas passée deux fois.",
    menuError: 'La carte n\'a pas pu être chargée pour commander. Vérifiez la connexion et réessayez.',
    closedNow: 'Les commandes sont fermées pour le moment. Vous pouvez consulter la carte.', closedLink: 'Ce lien ne prend pas de commandes. Vous pouvez consulter la carte.',
    ingredients: 'Ingrédients', offer: 'Offre', added: '{name} ajouté à votre commande', order: 'Commande {number}',
    status_new: 'Reçue', status_confirmed: 'Confirmée', status_preparing: 'En préparation', status_delivering: 'En route',
    status_completed: 'Terminée', status_cancelled: 'Annulée', statusLive: 'Cette page suit votre commande toute seule.',
    backToMenu: 'Retour à la carte', notFound: 'Introuvable', tableNotFound: "Le code de cette table n'est pas actif. Demandez au personnel.",
    venueNotFound: 'Nous ne trouvons pas cette carte.', notPublished: "Cette carte n'est pas encore publiée.", unavailable: "Cette carte n'est pas disponible pour le moment.",
    orderNotFound: 'Nous ne trouvons pas cette commande.', other: 'Plus',
  },
  de: {
    table: 'Tisch {name}', categories: 'Kategorien', language: 'Sprache', add: 'Hinzufügen', addNamed: '{name} hinzufügen',
    addToOrder: 'Zur Bestellung · {price}', close: 'Schließen', required: 'Pflicht', chooseOne: 'Bitte wählen',
    quantity: 'Menge', decrease: 'Eins weniger', increase: 'Eins mehr', remove: 'Entfernen', yourOrder: 'Ihre Bestellung',
    viewOrder: 'Bestellung ansehen ({count}) · {price}', emptyOrder: 'Ihre Bestellung ist leer.', subtotal: 'Zwischensumme', discount: 'Rabatt', deliveryFee: 'Lieferung',
    total: 'Gesamt', minOrder: 'Mindestbestellwert {amount}', orderType: 'Wie möchten Sie es?', type_dine_in: 'Am Tisch',
    type_pickup: 'Abholung', type_delivery: 'Lieferung', payment: 'Zahlung', pay_cash: 'Bar', pay_terminal: 'Karte',
    name: 'Name', phone: 'Telefon', email: 'E-Mail (optional)', deliveryAddress: 'Lieferadresse',
    deliveryNotes: 'Hinweise für den Kurier', comment: 'Hinweis für die Küche', placeOrder: 'Bestellen',
    placing: 'Bestellung wird gesendet…', fixErrors: 'Bitte prüfen Sie die markierten Felder.', networkError: 'Verbindungsproblem: Die Bestellung konnte nicht bestätigt werden. Bitte erneut versuchen: Sie wird nicht doppelt aufgegeben.',
    menuError: 'Die Karte konnte zum Bestellen nicht geladen werden. Bitte Verbindung prüfen und erneut versuchen.',
    closedNow: 'Bestellungen sind gerade geschlossen. Die Karte können Sie trotzdem ansehen.', closedLink: 'Über diesen Link kann nicht bestellt werden. Die Karte können Sie trotzdem ansehen.',
    ingredients: 'Zutaten', offer: 'Angebot', added: '{name} zur Bestellung hinzugefügt', order: 'Bestellung {number}',
    status_new: 'Eingegangen', status_confirmed: 'Bestätigt', status_preparing: 'In Zubereitung', status_delivering: 'Unterwegs',
    status_completed: 'Abgeschlossen', status_cancelled: 'Storniert', statusLive: 'Diese Seite verfolgt Ihre Bestellung von selbst.',
    backToMenu: 'Zurück zur Karte', notFound: 'Nicht gefunden', tableNotFound: 'Der Code dieses Tisches ist nicht aktiv. Bitte fragen Sie das Personal.',
    venueNotFound: 'Diese Karte wurde nicht gefunden.', notPublished: 'Diese Karte ist noch nicht veröffentlicht.', unavailable: 'Diese Karte ist gerade nicht verfügbar.',
    orderNotFound: 'Diese Bestellung wurde nicht gefunden.', other: 'Weiteres',
  },
  ar: {
    table: 'طاولة {name}', categories: 'الأقسام', language: 'اللغة', add: 'أضف', addNamed: 'أضف {name}',
    addToOrder: 'أضف إلى الطلب · {price}', close: 'إغلاق', required: 'إلزامي', chooseOne: 'اختر خيارًا',
    quantity: 'الكمية', decrease: 'أنقص واحدًا', increase: 'زد واحدًا', remove: 'إزالة', yourOrder: 'طلبك',
    viewOrder: 'عرض الطلب ({count}) · {price}', emptyOrder: 'طلبك فارغ.', subtotal: 'المجموع الفرعي', discount: 'الخصم', deliveryFee: 'التوصيل',
    total: 'الإجمالي', minOrder: 'الحد الأدنى للطلب {amount}', orderType: 'كيف تريد طلبك؟', type_dine_in: 'على الطاولة',
    type_pickup: 'استلام', type_delivery: 'توصيل', payment: 'الدفع', pay_cash: 'نقدًا', pay_terminal: 'بطاقة',
    name: 'الاسم', phone: 'الهاتف', email: 'البريد الإلكتروني (اختياري)', deliveryAddress: 'عنوان التوصيل',
    deliveryNotes: 'ملاحظات للمندوب', comment: 'ملاحظة للمطبخ', placeOrder: 'أرسل الطلب',
    placing: 'جارٍ إرسال طلبك…', fixErrors: 'يرجى مراجعة الحقول المشار إليها.', networkError: 'مشكلة في الاتصال: تعذّر تأكيد الطلب. حاول مرة أخرى: لن يُرسل مرتين.',
    menuError: 'تعذّر تحميل القائمة للطلب. تحقّق من الاتصال وحاول مرة أخرى.',
    closedNow: 'الطلبات مغلقة الآن. يمكنك تصفح القائمة.', closedLink: 'هذا الرابط لا يستقبل الطلبات. يمكنك تصفح القائمة.',
    ingredients: 'المكونات', offer: 'عرض', added: 'أُضيف {name} إلى طلبك', order: 'الطلب {number}',
    status_new: 'تم الاستلام', status_confirmed: 'تم التأكيد', status_preparing: 'قيد التحضير', status_delivering: 'في الطريق',
    status_completed: 'مكتمل', status_cancelled: 'ملغى', statusLive: 'تتابع هذه الصفحة طلبك تلقائيًا.',
    backToMenu: 'العودة إلى القائمة', notFound: 'غير موجود', tableNotFound: 'رمز هذه الطاولة غير مفعّل. يرجى سؤال الموظفين.',
    venueNotFound: 'لم نجد هذه القائمة.', notPublished: 'هذه القائمة لم تُنشر بعد.', unavailable: 'هذه القائمة غير متاحة الآن.',
    orderNotFound: 'لم نجد هذا الطلب.', other: 'المزيد',
  },
};

/** The languages the page has its own words in. */
export const UI_LANGUAGES: readonly string[] = ['en', ...Object.keys(translations)];

/** The page's words in `locale` (its language subtag), English where a word is missing. */
export function uiStrings(locale: string): UiStrings {
  const language = locale.toLowerCase().split(/[-_]/)[0];
  return { ...en, ...translations[language] };
}

/** `{name}` placeholders filled (values are text: the caller escapes for HTML). */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
}

const RTL_LANGUAGES = new Set(['ar', 'he', 'fa', 'ur', 'ps', 'sd', 'ug', 'yi', 'dv', 'ckb', 'ku']);

/** Writing direction of a locale's language. */
export function directionOf(locale: string): 'rtl' | 'ltr' {
  return RTL_LANGUAGES.has(locale.toLowerCase().split(/[-_]/)[0]) ? 'rtl' : 'ltr';
}
