#version 330 core
// A full-screen triangle shaded from the skybox's top colour to its bottom colour.
out float v_height;
void main() {
  vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2) * 2.0 - 1.0;
  v_height = 0.5 + 0.5 * p.y;
  gl_Position = vec4(p, 1.0, 1.0);
}
