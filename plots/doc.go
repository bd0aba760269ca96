// Package plots draws the LIMBO paper's Figures 1–6 with gonum/plot as
// PNG (300 dpi), SVG and PDF. It computes no statistics: Figures 2, 3 and 6
// draw the figure-data tables of paper.Results.Figures ("figure2",
// "figure3", "figure6"), Figures 4 and 5 draw the cells of Tables 6 and 7,
// so every plotted number is a number a table or a figure's data table
// shows (the tests check this cell by cell on testdata/plots/ledger.csv.gz).
//
// Entry points: RenderAll writes every figure the results support into a
// directory, RenderTo adds them to a unit of files; a Renderer made before
// the analysis draws meanwhile the figure that reads no results (Figure 1);
// Build and (*Figure).Write render one figure to any writer.
//
// Figure 1 draws actual sandbox traces: sandbox.Figure1Traces runs a
// scripted verify-then-retry client, with and without a reused idempotency
// key, in the W_absent and W_late worlds, and reads each episode as a
// timeline (sandbox.TraceOf, the same traces the episode viewer draws).
// This package only draws them; it imports sandbox for Figure 1 only.
//
// Style: the Okabe–Ito colour-blind-safe palette, Liberation fonts (embedded
// by gonum/plot) at 7–8 pt on figures sized for a 3.3 in column or a 6.9 in
// page width, axis labels with units. SVG output is byte-stable for the
// same input.
package plots
