// q8_erf's polynomials (kernels/gelu.cl: Cephes' erff), highest power first, for the vector forms
// (activations_avx2.h's erf8, unary_avx512.cpp's erf16) to evaluate by the kernel's Horner steps.
// tests/cpu/unary_wide_test.cpp holds each form to the scalar function's bits.
#pragma once

namespace q8::erf_coefficients {

// x · T(x²) for |x| < 1.
inline constexpr float kT[] = {7.853861353153693e-5f, -8.010193625184903e-4f, 5.188327685732524e-3f, -2.685381193529856e-2f,
                               1.128358514861418e-1f, -3.761262582423300e-1f, 1.128379165726710e+0f};
// 1 − e^(−a²) / a · P(1/a²) for 1 ≤ a < 2.
inline constexpr float kP[] = {2.326819970068386e-2f, -1.387039388740657e-1f, 3.687424674597105e-1f,
                               -5.824733027278666e-1f, 6.210004621745983e-1f,  -4.944515323274145e-1f,
                               3.404879937665872e-1f,  -2.741127028184656e-1f, 5.638259427386472e-1f};
// 1 − e^(−a²) / a · R(1/a²) for 2 ≤ a < 4.
inline constexpr float kR[] = {-1.047766399936249e+1f, 1.297719955372516e+1f, -7.495518717768503e+0f,
                               2.921019019210786e+0f,  -1.015265279202700e+0f, 4.218463358204948e-1f,
                               -2.820767439740514e-1f, 5.641895067754075e-1f};

}  // namespace q8::erf_coefficients
