import type { OpeningHours } from '../shared/opening-hours.js';
import type { CreateStoreBody } from '../modules/stores/index.js';
import type { CreateProfileBody } from '../modules/suppliers/index.js';
import { DEMO_PASSWORD, type DemoAccount } from './accounts.seed.js';

// Demo suppliers around Dakar: invented businesses at real places (street, neighbourhood and
// coordinates), so that a search or a nearby query from anywhere in the city finds some.

export interface DemoSupplier {
  owner: DemoAccount;
  profile: CreateProfileBody;
  /** Sent with the KYC documents, in the form the commercial register uses. */
  registrationNumber: string;
  stores: CreateStoreBody[];
}

const TZ = 'Africa/Dakar';

/** The same ranges on the given weekdays ("0" = Sunday). */
const on = (days: string, ranges: string[]): OpeningHours => Object.fromEntries([...days].map((d) => [d, ranges]));

const owner = (
  n: number,
  firstName: string,
  lastName: string,
  role: DemoAccount['role'] = 'SUPPLIER_FOOD',
): DemoAccount => ({
  role,
  phoneNumber: `+2217700002${String(n).padStart(2, '0')}`,
  password: DEMO_PASSWORD,
  firstName,
  lastName,
  email: `${firstName}.${lastName}@foodsave.test`.toLowerCase(),
});

const bakeryHours = { ...on('123456', ['06:30-13:30', '16:00-21:00']), ...on('0', ['07:00-13:00']) };
const caterer = on('023456', ['11:00-15:00', '18:30-23:00']);
const everyDay = (range: string) => on('0123456', [range]);
const restaurant = on('123456', ['12:00-15:30', '19:00-23:30']);
const counter = 'Retrait au comptoir : montrez le code de la commande.';

export const DEMO_SUPPLIERS: DemoSupplier[] = [
  {
    owner: owner(1, 'Cheikh', 'Diallo'),
    profile: {
      businessName: 'Boulangerie Teranga',
      description: 'Pain, viennoiseries et pâtisseries du jour à prix réduit en fin de journée.',
      contactPhone: '+221770000201',
      address: '12 Rue Carnot, Plateau',
      city: 'Dakar',
      latitude: 14.6669,
      longitude: -17.4341,
      payoutPhone: '+221770000201',
      openingHours: bakeryHours,
      timezone: TZ,
    },
    registrationNumber: 'SN-DKR-2019-B-10234',
    stores: [
      {
        name: 'Teranga Plateau',
        description: 'Baguettes, pain de mie et croissants invendus.',
        address: '12 Rue Carnot, Plateau',
        city: 'Dakar',
        latitude: 14.6669,
        longitude: -17.4341,
        openingHours: bakeryHours,
        timezone: TZ,
        pickupInstructions: counter,
      },
      {
        name: 'Teranga Médina',
        description: 'Pain tapalapa et pâtisseries du jour.',
        address: 'Avenue Blaise Diagne x Rue 27, Médina',
        city: 'Dakar',
        latitude: 14.6826,
        longitude: -17.4479,
        openingHours: bakeryHours,
        timezone: TZ,
        pickupInstructions: counter,
      },
    ],
  },
  {
    owner: owner(2, 'Ndeye', 'Faye'),
    profile: {
      businessName: 'Saveurs des Almadies',
      description: 'Traiteur : thiéboudienne, yassa et salades préparés le jour même.',
      contactPhone: '+221770000202',
      address: 'Route des Almadies, Almadies',
      city: 'Dakar',
      latitude: 14.7436,
      longitude: -17.5101,
      openingHours: caterer,
      timezone: TZ,
    },
    registrationNumber: 'SN-DKR-2021-B-04417',
    stores: [
      {
        name: 'Saveurs des Almadies',
        description: 'Plats du jour et desserts à emporter.',
        address: 'Route des Almadies, Almadies',
        city: 'Dakar',
        latitude: 14.7436,
        longitude: -17.5101,
        openingHours: caterer,
        timezone: TZ,
        pickupInstructions: 'Retrait à la caisse, apportez un sac.',
      },
    ],
  },
  {
    owner: owner(3, 'Abdoulaye', 'Mbaye'),
    profile: {
      businessName: 'Primeurs de Ouakam',
      description: 'Fruits et légumes de saison des Niayes, paniers anti-gaspi chaque soir.',
      contactPhone: '+221770000203',
      address: 'Route de Ouakam, Ouakam',
      city: 'Dakar',
      latitude: 14.7213,
      longitude: -17.4867,
      openingHours: everyDay('07:00-20:00'),
      timezone: TZ,
    },
    registrationNumber: 'SN-DKR-2020-A-08861',
    stores: [
      {
        name: 'Primeurs de Ouakam',
        description: 'Mangues, tomates, oignons et légumes feuilles.',
        address: 'Route de Ouakam, Ouakam',
        city: 'Dakar',
        latitude: 14.7213,
        longitude: -17.4867,
        openingHours: everyDay('07:00-20:00'),
        timezone: TZ,
      },
    ],
  },
  {
    owner: owner(4, 'Rokhaya', 'Sy'),
    profile: {
      businessName: 'Supérette Keur Yaay',
      description: 'Épicerie de quartier : produits laitiers, conserves et produits frais proches de leur date.',
      contactPhone: '+221770000204',
      address: 'Unité 17, Parcelles Assainies',
      city: 'Dakar',
      latitude: 14.7664,
      longitude: -17.4395,
      openingHours: everyDay('08:00-22:30'),
      timezone: TZ,
    },
    registrationNumber: 'SN-DKR-2018-B-15502',
    stores: [
      {
        name: 'Keur Yaay Parcelles',
        description: 'Yaourts, lait caillé et pain du jour.',
        address: 'Unité 17, Parcelles Assainies',
        city: 'Dakar',
        latitude: 14.7664,
        longitude: -17.4395,
        openingHours: everyDay('08:00-22:30'),
        timezone: TZ,
        pickupInstructions: counter,
      },
      {
        name: 'Keur Yaay Pikine',
        description: 'Produits frais et conserves à prix réduit.',
        address: 'Marché Zinc, Pikine',
        city: 'Pikine',
        latitude: 14.7552,
        longitude: -17.3934,
        openingHours: everyDay('08:00-22:30'),
        timezone: TZ,
        pickupInstructions: counter,
      },
    ],
  },
  {
    owner: owner(5, 'Fatou', 'Kane', 'SUPPLIER_DEALS'),
    profile: {
      businessName: 'Chez Fatou',
      description: 'Restaurant sénégalais : menus du soir à prix réduit sur réservation.',
      contactPhone: '+221770000205',
      address: "Boulevard de l'Est, Point E",
      city: 'Dakar',
      latitude: 14.6947,
      longitude: -17.4628,
      openingHours: restaurant,
      timezone: TZ,
    },
    registrationNumber: 'SN-DKR-2022-B-02290',
    stores: [
      {
        name: 'Chez Fatou Point E',
        description: 'Salle de 40 couverts et plats à emporter.',
        address: "Boulevard de l'Est, Point E",
        city: 'Dakar',
        latitude: 14.6947,
        longitude: -17.4628,
        openingHours: restaurant,
        timezone: TZ,
      },
    ],
  },
];
