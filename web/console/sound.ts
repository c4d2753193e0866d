// The new-order sound: a short two-tone beep made with the Web Audio API (no audio file to load).
// Browsers start audio only after a tap or a key on the page, so it is off until the staff switch
// it on; the choice is remembered, and a remembered "on" starts at the first tap after a reload.
import { byId } from '../shared/dom.js';

const KEY = 'carta.console.sound';
let context: AudioContext | null = null;
let on = false;

function audio(): AudioContext | null {
  if (!context && typeof AudioContext === 'function') context = new AudioContext();
  if (context?.state === 'suspended') void context.resume();
  return context;
}

/** Plays the beep when the sound is on. */
export function beep(): void {
  if (!on) return;
  const ctx = audio();
  if (!ctx) return;
  const start = ctx.currentTime + 0.01;
  for (const [offset, frequency] of [
    [0, 880],
    [0.18, 1320],
  ] as const) {
    const oscillator = ctx.createOscillator();
    const gain = ctx.createGain();
    oscillator.type = 'sine';
    oscillator.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, start + offset);
    gain.gain.exponentialRampToValueAtTime(0.35, start + offset + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + offset + 0.16);
    oscillator.connect(gain).connect(ctx.destination);
    oscillator.start(start + offset);
    oscillator.stop(start + offset + 0.17);
  }
}

function show(button: HTMLButtonElement): void {
  button.setAttribute('aria-pressed', String(on));
  button.textContent = on ? 'Sound on' : 'Sound off';
}

/** The "Sound" toggle in the header (aria-pressed). */
export function startSound(): void {
  const button = byId<HTMLButtonElement>('sound');
  if (!button) return;
  try {
    on = localStorage.getItem(KEY) === 'on';
  } catch {
    on = false;
  }
  if (on) {
    const wake = () => audio();
    document.addEventListener('pointerdown', wake, { once: true });
    document.addEventListener('keydown', wake, { once: true });
  }
  show(button);
  button.hidden = false;
  button.addEventListener('click', () => {
    on = !on;
    try {
      localStorage.setItem(KEY, on ? 'on' : 'off');
    } catch {}
    show(button);
    // The tap that switches it on lets the browser start audio; the beep says it works.
    beep();
  });
}
